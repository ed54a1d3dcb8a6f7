/**
 * What the console refuses from web pages other than its own, since it can
 * call any function and edit state:
 *
 * - Without a token (loopback only), a `Host` that is not loopback: a page
 *   of another site whose name was rebound to 127.0.0.1 (DNS rebinding)
 *   would otherwise read and call everything as the console's own page.
 * - A request that changes something (any method but GET, HEAD and OPTIONS)
 *   sent by a page of another origin (its `Origin` is not the console's, or
 *   `Sec-Fetch-Site` says `cross-site`): a form or `fetch` of any site the
 *   operator visits (CSRF), a page on another port of localhost included.
 *
 * Programs (curl, scripts) send neither header and are not affected.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { isLoopbackHostHeader, isOriginOfHost } from "../engine/origin.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The guard; `checkHost` for a console without a token. */
export function refuseOtherSites(options: { checkHost: boolean }): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (options.checkHost && host !== undefined && !isLoopbackHostHeader(host)) {
      return forbidden(
        c,
        `Console requests must be addressed to localhost or 127.0.0.1: got Host ${
          JSON.stringify(host.slice(0, 200))
        } (set console.token to serve it under another name)`,
      );
    }
    if (!SAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header("origin");
      const crossOrigin = origin !== undefined &&
        (host === undefined || !isOriginOfHost(origin, host));
      if (crossOrigin || c.req.header("sec-fetch-site") === "cross-site") {
        return forbidden(
          c,
          `Console refused a ${c.req.method} from a page of another site: ${
            JSON.stringify((origin ?? "unknown origin").slice(0, 200))
          }`,
        );
      }
    }
    return await next();
  };
}

function forbidden(c: Context, message: string) {
  return c.json({ error: { code: "forbidden", message } }, 403);
}

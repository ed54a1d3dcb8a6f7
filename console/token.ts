/**
 * The console's token. On loopback the console is open; bound anywhere else
 * it refuses to start without a token (`console.token` or
 * `ENGINE_CONSOLE_TOKEN`), since it can call any function. A request then
 * needs `Authorization: Bearer <token>`, or the cookie set by opening the
 * console once with `?token=<token>`.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createHmac } from "node:crypto";
import { bearerToken, sameToken } from "../engine/token.ts";

export const TOKEN_COOKIE = "engine_console_token";

/**
 * What the cookie holds for `token`: a value derived from it, not the token. Browsers send a
 * host's cookies to every port of it (engine-http's handlers on the same name see them), and the
 * token may open more than the console (the same text set as `auth.token`, say).
 */
export function cookieValue(token: string): string {
  return createHmac("sha256", token).update("engine-console-cookie").digest("base64url");
}

/** Admits requests carrying `token`; `?token=` sets the cookie and redirects without it. */
export function requireToken(token: string): MiddlewareHandler {
  const expected = cookieValue(token);
  return async (c, next) => {
    const bearer = bearerToken(c.req.header("authorization"));
    if (bearer !== "" && sameToken(bearer, token)) return await next();
    const cookie = getCookie(c, TOKEN_COOKIE);
    if (cookie !== undefined && sameToken(cookie, expected)) return await next();
    const query = c.req.query("token");
    if (query !== undefined && sameToken(query, token)) {
      setCookie(c, TOKEN_COOKIE, expected, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
      });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      // One leading slash: `//evil.example/` would send the browser to another site.
      return c.redirect(`/${url.pathname.replace(/^[/\\]+/, "")}${url.search}`, 303);
    }
    const message = refusal(query !== undefined, cookie !== undefined);
    // A person opening a page reads a page; a script reads JSON.
    if (c.req.method === "GET" && (c.req.header("accept") ?? "").includes("text/html")) {
      return c.html(refusalPage(message), 401);
    }
    return c.json({ error: { code: "unauthorized", message } }, 401);
  };
}

/** Why a request is refused, in the operator's terms: a wrong token, an old one, or none. */
function refusal(linkToken: boolean, cookieToken: boolean): string {
  const how = "open the console with ?token=<token> or send Authorization: Bearer <token>";
  if (linkToken) {
    return `The token in the link is not this console's token (console.token or ENGINE_CONSOLE_TOKEN): ${how}`;
  }
  if (cookieToken) {
    return `The console no longer accepts this browser's token (its token changed): ${how}`;
  }
  return `Console token required: ${how}`;
}

function refusalPage(message: string): string {
  const text = message.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Token required · engine console</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1 style="font-size: 1.3rem">engine console</h1><p role="alert">${text}</p></body></html>
`;
}

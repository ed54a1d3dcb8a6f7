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
import { bearerToken, sameToken } from "../engine/token.ts";

export const TOKEN_COOKIE = "engine_console_token";

/** Admits requests carrying `token`; `?token=` sets the cookie and redirects without it. */
export function requireToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    const bearer = bearerToken(c.req.header("authorization"));
    if (bearer !== "" && sameToken(bearer, token)) return await next();
    const cookie = getCookie(c, TOKEN_COOKIE);
    if (cookie !== undefined && sameToken(cookie, token)) return await next();
    const query = c.req.query("token");
    if (query !== undefined && sameToken(query, token)) {
      setCookie(c, TOKEN_COOKIE, token, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
      });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    return c.json(
      {
        error: {
          code: "unauthorized",
          message:
            "Console token required: open the console with ?token=<token> or send Authorization: Bearer <token>",
        },
      },
      401,
    );
  };
}

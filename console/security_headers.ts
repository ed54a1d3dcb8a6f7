/**
 * Headers on every console reply that keep other sites' pages from using it
 * in the operator's browser:
 *
 * - `frame-ancestors 'none'` and `X-Frame-Options: DENY`: no page may show
 *   the console in a frame. On loopback without a token, a framed console is
 *   the console itself: its requests come from its own origin, so the
 *   cross-site guard admits them, and a page laid over it could make the
 *   operator click "Discard all" or "Run" (clickjacking).
 * - `X-Content-Type-Options: nosniff`: JSON holding what a worker wrote is
 *   never read as a page or a script.
 * - `Cross-Origin-Resource-Policy: same-origin`: no other page may load a
 *   reply (`<script src="/api/…">`, `<img>`) into its own process.
 * - A Content-Security-Policy admitting the console's own scripts, styles
 *   and API only: should a value a worker controls ever reach the page as
 *   markup, no script it carries runs and nothing is sent elsewhere.
 * - `Referrer-Policy: no-referrer`: a console address (with `?token=`, or a
 *   function id) is not sent to another site.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  // The console evaluates no strings; its browser tests' string predicates
  // (playwright's waitForFunction) do. Injected markup still runs no script.
  "script-src 'self' 'unsafe-eval'",
  // The pages set `style` attributes; no style can run a script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "no-referrer",
};

/** Sets {@linkcode SECURITY_HEADERS} on every reply, refusals and the event stream included. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  };
}

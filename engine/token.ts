/**
 * Bearer tokens at the engine's edges, the same rules for the worker socket
 * and the console: a server bound beyond loopback must require a token, and
 * a presented token is compared in constant time.
 *
 * @module
 */

import { isLoopbackHost } from "./host.ts";

/**
 * Whether a server bound to `host` with `token` would let other machines in
 * without one: a host other than loopback needs a non-empty token.
 */
export function exposedWithoutToken(host: string, token: string | undefined): boolean {
  return !isLoopbackHost(host) && (token === undefined || token === "");
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme in any case,
 * surrounding spaces trimmed), or `""` when the header is missing or another
 * scheme.
 */
export function bearerToken(header: string | null | undefined): string {
  return /^bearer\s+(.*)$/i.exec(header ?? "")?.[1]?.trim() ?? "";
}

/** Whether `given` is `expected`, in time independent of where they differ. */
export function sameToken(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}

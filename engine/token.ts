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

/**
 * Why `token` cannot be a token, or `undefined` when it can: it must be
 * printable ASCII without spaces at either end. A header's bytes are Latin-1
 * (`ByteString`): clients send other characters differently (UTF-8, Latin-1)
 * or refuse to, so such a token would match for some clients and not for
 * others; and `Bearer  x ` is read as `x`. The token itself is not repeated:
 * it is a secret.
 */
export function tokenProblem(token: string): string | undefined {
  const at = token.search(/[^\x20-\x7e]/);
  if (at !== -1) {
    const code = token.codePointAt(at)!.toString(16).toUpperCase().padStart(4, "0");
    return `Invalid token: character ${at + 1} (U+${code}) is not printable ASCII: ` +
      "HTTP clients send other characters in different ways (or not at all), so it would " +
      "match for some and not for others: use letters, digits and punctuation";
  }
  if (token.trim() !== token) {
    return "Invalid token: it starts or ends with a space, which a Bearer header drops: remove it";
  }
  return undefined;
}

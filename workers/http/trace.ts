/**
 * W3C trace context for an HTTP request: a valid inbound `traceparent`
 * header is continued (same trace, a new span), otherwise a trace starts
 * here. Every call the request makes carries the result.
 *
 * @module
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** The `traceparent` for the calls of a request whose header was `inbound`. */
export function traceparentFor(inbound: string | null): string {
  const match = inbound === null ? null : TRACEPARENT.exec(inbound.trim().toLowerCase());
  if (match && !ZEROS.test(match[1]!) && !ZEROS.test(match[2]!)) {
    return `00-${match[1]}-${randomHex(8)}-${match[3]}`;
  }
  return `00-${randomHex(16)}-${randomHex(8)}-01`;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

// Random bytes are drawn in blocks: one `getRandomValues` call serves many requests.
const pool = new Uint8Array(4096);
let used = pool.length;

/** `bytes` random bytes as lower-case hex. */
export function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let out = "";
  for (let i = used; i < used + bytes; i++) out += HEX[pool[i]!];
  used += bytes;
  return out;
}

/**
 * The payload of a close frame (RFC 6455 §5.5.1): an optional 2-byte code
 * followed by a UTF-8 reason.
 *
 * @module
 */

import { FrameError } from "./frame.ts";

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a received close frame's payload: code 1005 ("no status") when it is
 * empty. Throws a {@linkcode FrameError} (1002 or 1007) for a payload that
 * breaks the rules.
 *
 * @example
 * ```ts
 * console.log(parseClosePayload(new Uint8Array([0x03, 0xe8, 0x6f, 0x6b]))); // { code: 1000, reason: "ok" }
 * ```
 */
export function parseClosePayload(payload: Uint8Array): { code: number; reason: string } {
  if (payload.length === 0) return { code: 1005, reason: "" };
  if (payload.length === 1) throw new FrameError(1002, "Close frame with a 1-byte payload");
  const code = (payload[0]! << 8) | payload[1]!;
  if (!isValidCloseCode(code)) throw new FrameError(1002, `Invalid close code ${code}`);
  try {
    return { code, reason: strictDecoder.decode(payload.subarray(2)) };
  } catch {
    throw new FrameError(1007, "Close reason is not valid UTF-8");
  }
}

/**
 * The payload of a close frame to send: empty without a code.
 *
 * @example
 * ```ts
 * console.log(encodeClosePayload(1000, new TextEncoder().encode("ok"))); // Uint8Array(4) [ 3, 232, 111, 107 ]
 * ```
 */
export function encodeClosePayload(code: number | undefined, reason: Uint8Array): Uint8Array {
  if (code === undefined) return new Uint8Array(0);
  const payload = new Uint8Array(2 + reason.length);
  payload[0] = code >>> 8;
  payload[1] = code & 0xff;
  payload.set(reason, 2);
  return payload;
}

/**
 * Whether a peer may send `code` in a close frame (1005 and 1006 are never
 * sent; 3000-4999 are for applications).
 *
 * @example
 * ```ts
 * console.log(isValidCloseCode(1000), isValidCloseCode(1006)); // true false
 * ```
 */
export function isValidCloseCode(code: number): boolean {
  if (code >= 3000 && code <= 4999) return true;
  return code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006;
}

/**
 * The size limit of one message to the engine. Its server takes messages of
 * up to 64 MiB - 1 bytes and ends the connection on a larger one, failing
 * every call in flight on it; below that the engine refuses a frame over its
 * `max_frame_bytes` (16 MiB by default) with `frame_too_large` for that call
 * alone. So the SDK does not send what the server would end the connection
 * for, and fails just that call.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** The largest message, in UTF-8 bytes, the engine's server takes. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024 - 1;

/**
 * The UTF-8 size of `text` when it is over {@linkcode MAX_FRAME_BYTES}, else
 * `undefined`. Counts bytes only for texts long enough to be over.
 *
 * @example
 * ```ts
 * console.log(oversize("{}")); // undefined
 * ```
 */
export function oversize(text: string): number | undefined {
  if (text.length * 3 <= MAX_FRAME_BYTES) return undefined; // at most 3 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(text, "utf8");
  return bytes > MAX_FRAME_BYTES ? bytes : undefined;
}

/** Why a frame of `bytes` was not sent: `<what> is <bytes> bytes, over …: it was not sent`. */
export function oversizeMessage(what: string, bytes: number): string {
  return `${what} is ${bytes} bytes, over the ${MAX_FRAME_BYTES} bytes the engine takes in one message: it was not sent`;
}

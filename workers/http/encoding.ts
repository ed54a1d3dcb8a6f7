/**
 * A request body's content codings (`Content-Encoding`, RFC 9110 §8.4),
 * undone before the body is parsed: `gzip` (`x-gzip`) and `deflate`, in the
 * reverse of the order they were applied; `identity` is none. Any other
 * coding is refused with 415, rather than parsed as if it were the content
 * (gzip bytes handed on as text, or a 400 saying the JSON is not UTF-8).
 * `body_limit` bounds the decompressed size too, checked as it inflates, so a
 * small body that inflates to gigabytes is refused early.
 *
 * The `request_body` channel still gives the bytes as received.
 *
 * @module
 */
import type { BodyLimit } from "./body.ts";
import { Code, HttpError } from "./errors.ts";

const FORMATS: Record<string, CompressionFormat> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
};

/** `bytes` with the codings of `header` (the `Content-Encoding` value, or `null`) undone. */
export async function decodeContent(
  bytes: Uint8Array,
  header: string | null,
  limit: BodyLimit,
): Promise<Uint8Array> {
  if (header === null || bytes.byteLength === 0) return bytes;
  const codings = header.split(",").map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  for (const coding of codings) {
    if (!(coding in FORMATS)) {
      throw new HttpError(
        415,
        Code.UnsupportedEncoding,
        `Request body has Content-Encoding ${
          JSON.stringify(coding)
        }, which engine-http cannot decode: use gzip or deflate, or send it uncompressed`,
      );
    }
  }
  for (const coding of codings.reverse()) {
    bytes = await inflate(bytes, coding, limit);
  }
  return bytes;
}

async function inflate(bytes: Uint8Array, coding: string, limit: BodyLimit): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream(FORMATS[coding]!));
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit.bytes) {
        throw new HttpError(413, Code.PayloadTooLarge, `${limit.refusal} once decompressed`);
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof HttpError) throw error;
    throw new HttpError(
      400,
      Code.InvalidBody,
      `Request body could not be decompressed (Content-Encoding ${JSON.stringify(coding)}): ${
        (error as Error)?.message ?? error
      }`,
    );
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Reading and parsing a request body, at most `body_limit` bytes of it (or
 * the engine's `max_frame_bytes`, when that is lower).
 *
 * | Content type | `body` |
 * |---|---|
 * | `application/json`, `application/*+json` (any case, any parameters) | the parsed value, integers beyond 2^53 kept exact; malformed JSON is a 400 |
 * | `text/*` | a string (decoded by its `charset`, UTF-8 by default) |
 * | `application/x-www-form-urlencoded` | an object, last value wins for a repeated name |
 * | anything else, or none | `{content_type, base64}` |
 * | no body, or an empty one | `null` |
 *
 * @module
 */
import { deeperThan } from "../../engine/protocol/depth.ts";
import { exactlyParsed } from "../../engine/protocol/exact_json.ts";
import { Code, HttpError } from "./errors.ts";
import { describeJsonError } from "./json_error.ts";

/** The most bytes a request body may have, and what a larger one is told. */
export interface BodyLimit {
  bytes: number;
  refusal: string;
}

/**
 * engine-http's `body_limit`, or the engine's `max_frame_bytes` where that is
 * lower: a call carrying a larger body could not be sent by any worker, and
 * no more should pass through engine-http.
 */
export function bodyLimit(body_limit: number, maxFrameBytes?: number): BodyLimit {
  if (maxFrameBytes === undefined || body_limit <= maxFrameBytes) {
    return {
      bytes: body_limit,
      refusal: `Request body is larger than the body_limit of ${body_limit} bytes`,
    };
  }
  return {
    bytes: maxFrameBytes,
    refusal: `Request body is larger than ${maxFrameBytes} bytes, the engine's max_frame_bytes ` +
      `(set in the engine config, below engine-http's body_limit of ${body_limit}): ` +
      "no call can carry it to a worker",
  };
}

/** Reads and parses the body of `request`; throws an {@link HttpError} for 400 and 413. */
export async function readBody(request: Request, limit: BodyLimit): Promise<unknown> {
  const bytes = await readBytes(request, limit);
  return bytes === null ? null : parseBody(bytes, request.headers.get("content-type"));
}

/**
 * The body's bytes (`null` for none); a body over `limit` is refused without
 * being read whole. `request.body` is left alone unless the body has to be
 * read as a stream: asking for it makes the stream, and Deno then reads a
 * whole body through it instead of taking it in one piece.
 */
export async function readBytes(request: Request, limit: BodyLimit): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared)) {
    if (Number(declared) > limit.bytes) {
      if (request.body === null) return null;
      await request.body.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    // The server enforces the declared length, so the whole body fits. No body reads as empty.
    return await request.bytes();
  }
  if (request.body === null) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit.bytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Parses `bytes` by `contentType` (the header's value, or `null`). */
export function parseBody(bytes: Uint8Array, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return null;
  const { type, charset } = mediaType(contentType);
  if (type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))) {
    let text: string;
    try {
      // JSON is UTF-8 (RFC 8259 §8.1): bytes that are not would reach the handler as U+FFFD.
      text = charset === undefined || /^utf-?8$/i.test(charset)
        ? strictUtf8.decode(bytes)
        : decode(bytes, charset);
    } catch {
      throw new HttpError(400, Code.InvalidBody, "Request body is not valid UTF-8 JSON");
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new HttpError(
        400,
        Code.InvalidBody,
        `Request body is not valid JSON: ${describeJsonError(text)}`,
      );
    }
    if (text.length > 2 * MAX_JSON_DEPTH && deeperThan(value, MAX_JSON_DEPTH)) {
      throw new HttpError(
        400,
        Code.InvalidBody,
        `Request body is JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    // Integers beyond 2^53 (64-bit ids) as written, not rounded: a second parse only for a text
    // with 16 digits in a row. After the depth check, which counts a kept integer as a level.
    return exactlyParsed(text, value);
  }
  if (type.startsWith("text/")) return decode(bytes, charset);
  if (type === "application/x-www-form-urlencoded") {
    return Object.fromEntries(new URLSearchParams(decode(bytes, charset)));
  }
  return { content_type: contentType ?? "application/octet-stream", base64: toBase64(bytes) };
}

/**
 * The deepest JSON body passed on. JSON.parse takes any depth, but the
 * engine refuses a frame nested more than 512 levels deep (JSON.stringify,
 * recursive, would blow the stack), and the body sits two levels down in a
 * call's frame: a deeper body got a 500 from the call, or from JSON.stringify
 * where it was written, rather than a 400.
 */
export const MAX_JSON_DEPTH = 500;

function mediaType(header: string | null): { type: string; charset: string | undefined } {
  if (header === null) return { type: "", charset: undefined };
  const [type = "", ...params] = header.split(";");
  let charset: string | undefined;
  for (const param of params) {
    const [name, value] = param.split("=");
    if (name?.trim().toLowerCase() === "charset" && value) {
      charset = value.trim().replace(/^"|"$/g, "");
    }
  }
  return { type: type.trim().toLowerCase(), charset };
}

const utf8 = new TextDecoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function decode(bytes: Uint8Array, charset: string | undefined): string {
  if (charset === undefined || /^utf-?8$/i.test(charset)) return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes); // an unknown charset label: read it as UTF-8
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

function tooLarge(limit: BodyLimit): HttpError {
  return new HttpError(413, Code.PayloadTooLarge, limit.refusal);
}

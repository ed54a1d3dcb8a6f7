/**
 * The HTTP/1.1 upgrade request of a WebSocket client (RFC 6455 §4) and the
 * validation of the server's response.
 *
 * @module
 */

import { createHash, randomBytes } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** Largest response head we accept before giving up on the server. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * The upgrade failed: the server answered with something other than a valid
 * `101 Switching Protocols`. `status` is the HTTP status when one was read.
 *
 * @example
 * ```ts
 * const err = new HandshakeError("WebSocket handshake failed: HTTP 401 Unauthorized", { status: 401 });
 * console.log(err.status); // 401
 * ```
 */
export class HandshakeError extends Error {
  /** HTTP status of the response, if the server sent one. */
  readonly status: number | undefined;
  /** Lower-cased response headers, if a response was read. */
  readonly headers: Record<string, string>;
  /** Start of the response body, if any (at most 4 KiB). */
  readonly body: string;
  constructor(
    message: string,
    init: { status?: number; headers?: Record<string, string>; body?: string } = {},
  ) {
    super(message);
    this.name = "HandshakeError";
    this.status = init.status;
    this.headers = init.headers ?? {};
    this.body = init.body ?? "";
  }
}

/**
 * A fresh random `Sec-WebSocket-Key`.
 *
 * @example
 * ```ts
 * console.log(generateKey().length); // 24
 * ```
 */
export function generateKey(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The `Sec-WebSocket-Accept` value a server must answer for `key`.
 *
 * @example
 * ```ts
 * console.log(acceptFor("dGhlIHNhbXBsZSBub25jZQ==")); // "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
 * ```
 */
export function acceptFor(key: string): string {
  return createHash("sha1").update(key + GUID).digest("base64");
}

/**
 * Builds the upgrade request for `url` with `key`, plus extra headers.
 *
 * @example
 * ```ts
 * const req = buildRequest(new URL("ws://localhost:49134/"), generateKey(), { "x-a": "b" });
 * console.log(req.startsWith("GET / HTTP/1.1\r\n")); // true
 * ```
 */
export function buildRequest(
  url: URL,
  key: string,
  headers: Record<string, string> = {},
  protocols: readonly string[] = [],
): string {
  const path = (url.pathname || "/") + url.search;
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: ${url.host}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${key}`,
    "Sec-WebSocket-Version: 13",
  ];
  for (const protocol of protocols) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(protocol)) {
      throw new TypeError(`Invalid subprotocol name: "${protocol}"`);
    }
  }
  if (protocols.length > 0) lines.push(`Sec-WebSocket-Protocol: ${protocols.join(", ")}`);
  const reserved = new Set([
    "host",
    "upgrade",
    "connection",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "sec-websocket-protocol",
  ]);
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
      throw new TypeError(`Invalid header name: "${name}"`);
    }
    if (/[\r\n\0]/.test(value)) {
      throw new TypeError(
        `Invalid value for header "${name}": line breaks and NUL are not allowed`,
      );
    }
    if (reserved.has(name.toLowerCase())) {
      throw new TypeError(
        `Header "${name}" is set by the WebSocket client and cannot be overridden`,
      );
    }
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/** A parsed HTTP response head. */
export interface ResponseHead {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** Number of bytes the head took, including the blank line. */
  length: number;
}

/**
 * Parses the response head from the bytes received so far; `undefined` when
 * it is not complete yet.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
 * console.log(parseResponseHead(bytes)?.status); // 101
 * ```
 */
export function parseResponseHead(bytes: Uint8Array): ResponseHead | undefined {
  const end = indexOfBlankLine(bytes);
  if (end < 0) {
    if (bytes.length > MAX_HEAD_BYTES) {
      throw new HandshakeError("WebSocket handshake failed: response head too large");
    }
    return undefined;
  }
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  const [statusLine = "", ...headerLines] = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) {
    throw new HandshakeError(
      `WebSocket handshake failed: invalid status line "${statusLine.slice(0, 80)}"`,
    );
  }
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(m[1]), statusText: m[2] ?? "", headers, length: end + 4 };
}

/**
 * Checks that `head` accepts the upgrade requested with `key`; throws a
 * {@linkcode HandshakeError} otherwise. The body of a refusal is passed in so
 * it can be quoted in the error.
 *
 * @example
 * ```ts
 * const key = generateKey();
 * validateResponse({
 *   status: 101,
 *   statusText: "Switching Protocols",
 *   headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-accept": acceptFor(key) },
 *   length: 0,
 * }, key);
 * ```
 */
export function validateResponse(
  head: ResponseHead,
  key: string,
  body = "",
  protocols: readonly string[] = [],
): void {
  const { status, statusText, headers } = head;
  const fail = (why: string) =>
    new HandshakeError(`WebSocket handshake failed: ${why}`, { status, headers, body });
  if (status !== 101) {
    const detail = body.trim() ? `: ${body.trim().slice(0, 200)}` : "";
    throw fail(`HTTP ${status}${statusText ? ` ${statusText}` : ""}${detail}`);
  }
  if ((headers["upgrade"] ?? "").toLowerCase() !== "websocket") {
    throw fail('missing "Upgrade: websocket" header');
  }
  if (!(headers["connection"] ?? "").toLowerCase().split(/\s*,\s*/).includes("upgrade")) {
    throw fail('missing "Connection: Upgrade" header');
  }
  if (headers["sec-websocket-accept"] !== acceptFor(key)) {
    throw fail("Sec-WebSocket-Accept does not match the key");
  }
  if (headers["sec-websocket-extensions"]) {
    throw fail(
      `server chose an extension that was not offered: "${headers["sec-websocket-extensions"]}"`,
    );
  }
  const chosen = headers["sec-websocket-protocol"];
  if (chosen && !protocols.includes(chosen)) {
    throw fail(
      `server chose a subprotocol that was not offered: "${headers["sec-websocket-protocol"]}"`,
    );
  }
}

function indexOfBlankLine(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/**
 * `a` followed by `b` (`b` itself when `a` is empty): the response head and a
 * refusal's body are gathered so, chunk by chunk.
 *
 * @example
 * ```ts
 * console.log(concatBytes(new Uint8Array([1]), new Uint8Array([2]))); // Uint8Array(2) [ 1, 2 ]
 * ```
 */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

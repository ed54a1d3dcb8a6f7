/**
 * The server side of the WebSocket opening handshake (RFC 6455 §4.2): checks
 * an upgrade request and builds the `101 Switching Protocols` answer. Both
 * servers refuse a request the same way with {@linkcode checkUpgrade}. The
 * accept value is computed by the SDK's client handshake, which checks it.
 *
 * @module
 */
import { acceptFor } from "../../sdk/typescript/websocket/handshake.ts";
import type { RequestHead } from "./http_head.ts";

/** The parts of an upgrade request the check reads. */
export interface UpgradeRequest {
  method: string;
  /** `1.0` or `1.1`; undefined when the server does not say (Deno's `Request`). */
  version?: string;
  /** A header's value (repeated fields joined with ", "), or null/undefined when absent. */
  header(name: string): string | null | undefined;
}

export type UpgradeCheck =
  | { ok: true; key: string }
  | { ok: false; status: 400 | 426; message: string; headers?: Record<string, string> };

export type Handshake =
  | { ok: true; response: Uint8Array }
  | { ok: false; status: 400 | 426; message: string; headers?: Record<string, string> };

const encoder = new TextEncoder();
/** A key is 16 random bytes in base64: 22 characters and `==`. */
const KEY = /^[A-Za-z0-9+/]{22}==$/;

/** Whether `req` is a valid version 13 upgrade (already routed to a WebSocket endpoint), or why not. */
export function checkUpgrade(req: UpgradeRequest): UpgradeCheck {
  if (req.method !== "GET") {
    return refuse(`A WebSocket upgrade must be a GET request, not ${req.method}`);
  }
  if (req.version !== undefined && req.version !== "1.1") {
    return refuse("A WebSocket upgrade needs HTTP/1.1");
  }
  if (!hasToken(req.header("connection"), "upgrade")) {
    return refuse('A WebSocket upgrade needs the header "Connection: Upgrade"');
  }
  // After the 101 the bytes that follow are frames: a body would be read as the first ones.
  const length = req.header("content-length");
  if (req.header("transfer-encoding") != null || (length != null && length.trim() !== "0")) {
    const what = length != null
      ? `Content-Length ${JSON.stringify(length.slice(0, 40))}`
      : `Transfer-Encoding ${JSON.stringify(req.header("transfer-encoding")!.slice(0, 40))}`;
    return refuse(`A WebSocket upgrade request must have no body: ${what}`);
  }
  const version = req.header("sec-websocket-version");
  if (version !== "13") {
    return {
      ok: false,
      status: 426,
      message: `Unsupported Sec-WebSocket-Version ${JSON.stringify(version ?? "")}: expected "13"`,
      headers: { "sec-websocket-version": "13" },
    };
  }
  const key = req.header("sec-websocket-key") ?? "";
  if (!KEY.test(key)) {
    return refuse(`Invalid Sec-WebSocket-Key ${JSON.stringify(key.slice(0, 60))}`);
  }
  return { ok: true, key };
}

/**
 * Accepts `head` (already routed to a WebSocket endpoint) or says why not;
 * `protocol`: the subprotocol chosen from those the request offers.
 */
export function acceptUpgrade(head: RequestHead, protocol?: string): Handshake {
  const check = checkUpgrade({
    method: head.method,
    version: head.version,
    header: (name) => head.headers.get(name),
  });
  if (!check.ok) return check;
  return {
    ok: true,
    response: encoder.encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptFor(check.key)}\r\n` +
        (protocol === undefined ? "" : `Sec-WebSocket-Protocol: ${protocol}\r\n`) + "\r\n",
    ),
  };
}

/** Whether the comma-separated header `value` lists `token` (in any case). */
export function hasToken(value: string | null | undefined, token: string): boolean {
  return value != null && value.split(",").some((t) => t.trim().toLowerCase() === token);
}

function refuse(message: string): UpgradeCheck {
  return { ok: false, status: 400, message };
}

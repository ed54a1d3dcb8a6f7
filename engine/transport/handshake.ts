/**
 * The server side of the WebSocket opening handshake (RFC 6455 §4.2): checks
 * an upgrade request and builds the `101 Switching Protocols` answer. The
 * accept value is computed by the SDK's client handshake, which checks it.
 *
 * @module
 */
import { acceptFor } from "../../sdk/typescript/websocket/handshake.ts";
import type { RequestHead } from "./http_head.ts";

export type Handshake =
  | { ok: true; response: Uint8Array }
  | { ok: false; status: 400 | 426; message: string; headers?: Record<string, string> };

const encoder = new TextEncoder();
/** A key is 16 random bytes in base64: 22 characters and `==`. */
const KEY = /^[A-Za-z0-9+/]{22}==$/;

/** Accepts `head` (already routed to a WebSocket endpoint) or says why not. */
export function acceptUpgrade(head: RequestHead): Handshake {
  if (head.method !== "GET") {
    return refuse(400, `A WebSocket upgrade must be a GET request, not ${head.method}`);
  }
  if (head.version !== "1.1") return refuse(400, "A WebSocket upgrade needs HTTP/1.1");
  if (!hasToken(head.headers.get("connection"), "upgrade")) {
    return refuse(400, 'A WebSocket upgrade needs the header "Connection: Upgrade"');
  }
  const version = head.headers.get("sec-websocket-version");
  if (version !== "13") {
    return {
      ok: false,
      status: 426,
      message: `Unsupported Sec-WebSocket-Version ${JSON.stringify(version ?? "")}: expected "13"`,
      headers: { "sec-websocket-version": "13" },
    };
  }
  const key = head.headers.get("sec-websocket-key") ?? "";
  if (!KEY.test(key)) {
    return refuse(400, `Invalid Sec-WebSocket-Key ${JSON.stringify(key.slice(0, 60))}`);
  }
  return {
    ok: true,
    response: encoder.encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`,
    ),
  };
}

function refuse(status: 400, message: string): Handshake {
  return { ok: false, status, message };
}

/** Whether the comma-separated header `value` lists `token` (in any case). */
function hasToken(value: string | undefined, token: string): boolean {
  return value !== undefined && value.split(",").some((t) => t.trim().toLowerCase() === token);
}

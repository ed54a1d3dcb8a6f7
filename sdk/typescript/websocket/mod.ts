/**
 * A small RFC 6455 WebSocket client over `node:net` / `node:tls` that runs on
 * Deno 2 and Node >= 20 without dependencies.
 *
 * @example
 * ```ts
 * import { WebSocketClient } from "./mod.ts";
 *
 * const ws = new WebSocketClient("ws://127.0.0.1:1", { handshakeTimeoutMs: 500 });
 * ws.onerror = (err) => console.log(err.message);
 * console.log((await ws.closed).code); // 1006
 * ```
 *
 * @module
 */

export {
  type CloseEvent,
  type MessageData,
  type ReadyState,
  WebSocketClient,
  type WebSocketClientOptions,
} from "./client.ts";
export { acceptFor, HandshakeError } from "./handshake.ts";
export { FrameError } from "./frame.ts";

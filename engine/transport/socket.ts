/**
 * The socket a {@linkcode WebSocketSession} writes to: the few members of the
 * DOM `WebSocket` it uses. Deno's `WebSocket` has them as they are; the
 * native transport's {@linkcode NativeSocket} implements them over a TCP
 * connection.
 *
 * @module
 */

/** `readyState` values, the same numbers as `WebSocket.CONNECTING` … `WebSocket.CLOSED`. */
export const SocketState = { Connecting: 0, Open: 1, Closing: 2, Closed: 3 } as const;

export interface EngineSocket {
  /** Bytes accepted by `send()` and not yet written to the connection. */
  readonly bufferedAmount: number;
  /** One of {@linkcode SocketState}. */
  readonly readyState: number;
  /** Queues a text message. */
  send(text: string): void;
  /** Starts the closing handshake. */
  close(code: number, reason: string): void;
}

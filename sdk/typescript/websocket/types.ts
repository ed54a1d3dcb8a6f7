/**
 * The types of the WebSocket client's options, states and events.
 *
 * @module
 */
import type { ConnectionOptions } from "node:tls";

/** Options of `WebSocketClient`. */
export interface WebSocketClientOptions {
  /** Extra headers for the upgrade request (e.g. `Authorization`). */
  headers?: Record<string, string>;
  /** Largest message accepted, in bytes; a bigger one fails the connection with 1009. Default 64 MiB. */
  maxMessageSize?: number;
  /** Time allowed for TCP connect plus upgrade. Default 10000 ms. */
  handshakeTimeoutMs?: number;
  /** Time to wait for the server's close frame after sending ours. Default 2000 ms. */
  closeTimeoutMs?: number;
  /** Extra `node:tls` options for `wss:` URLs (e.g. `ca`, `rejectUnauthorized`). */
  tls?: ConnectionOptions;
  /** Subprotocols offered, most preferred first; the server's choice is `WebSocketClient.protocol`. */
  protocols?: readonly string[];
}

/** How a connection ended. `code` 1006 means it ended without a close frame. */
export interface CloseEvent {
  code: number;
  reason: string;
  /** True when close frames were exchanged in both directions. */
  wasClean: boolean;
}

/** Lifecycle of a `WebSocketClient`. */
export type ReadyState = "connecting" | "open" | "closing" | "closed";

/** A received message: a string for text frames, bytes for binary frames. */
export type MessageData = string | Uint8Array;

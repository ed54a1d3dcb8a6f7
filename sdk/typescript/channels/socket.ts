/**
 * A channel end's socket, as the reader and the writer open and break it:
 * tracked in its worker's open ends while it is open (see `open_ends.ts`),
 * and broken off with 1001 at shutdown.
 *
 * @module
 */

import { WebSocketClient } from "../websocket/client.ts";
import { openEndsOf } from "./open_ends.ts";
import { type ChannelOptions, type ChannelRef, channelUrl, socketOptions } from "./ref.ts";

/** An opened end's socket, and what its `onclose` calls to leave the worker's open ends. */
export interface TrackedSocket {
  ws: WebSocketClient;
  untrack(): void;
}

/**
 * Opens the socket of `ref`, tracked in its worker's open ends, which break
 * it off with `breakEnd` at shutdown; `{refusal}` (nothing opened) once the
 * worker shut down.
 */
export function openTrackedSocket(
  engineUrl: string,
  ref: ChannelRef,
  options: ChannelOptions,
  breakEnd: (why: string) => Promise<void>,
): TrackedSocket | { refusal: string } {
  const ends = openEndsOf(options);
  const tracked = { break: breakEnd };
  if (ends && !ends.add(tracked)) return { refusal: ends.refusal! };
  try {
    const ws = new WebSocketClient(channelUrl(engineUrl, ref), socketOptions(options));
    return { ws, untrack: () => ends?.delete(tracked) };
  } catch (err) {
    ends?.delete(tracked);
    throw err;
  }
}

/**
 * Closes `ws` with 1001 (not 1000, which would end the data cleanly), or
 * drops it while it connects; resolves once it closed.
 */
export function breakSocket(ws: WebSocketClient | undefined): Promise<void> {
  if (!ws) return Promise.resolve();
  if (ws.readyState === "open") void ws.close(1001, "worker shut down");
  else if (ws.readyState === "connecting") ws.terminate();
  return ws.closed.then(() => {});
}

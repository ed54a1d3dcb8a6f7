/**
 * A channel end held by a WebSocket on `/ws/channels/{id}` (an iii-sdk
 * `ChannelReader` or `ChannelWriter`), whichever server accepted it.
 *
 * - A **write** socket's frames go into the channel. When the queue reaches
 *   its bound the socket stops being read, if its server can
 *   (`pause`/`resume`, the native transport): TCP then holds the writer back.
 *   A server that cannot stop reading (Deno's WebSocket) keeps taking frames
 *   up to {@linkcode OVERFLOW_BYTES} held in all, then closes the writer with 1008.
 *   A close with 1000 (or no code) ends the data; any other end (1006: the
 *   writer's connection dropped) breaks the channel off, which is logged.
 * - A **read** socket is sent the channel's frames (text as text, data as
 *   binary) while it keeps up ({@linkcode SOCKET_HIGH_WATER} unsent), and is
 *   closed with 1000 at the end of the data, 1011 when the writer broke off.
 *
 * @module
 */
import type { Logger } from "../api.ts";
import { type Channel, ChannelBroken, type Direction } from "./channel.ts";

/** What a channel end needs of a socket; both servers' sockets fit. */
export interface ChannelSocket {
  readonly bufferedAmount: number;
  send(text: string): void;
  sendBinary(bytes: Uint8Array): void;
  close(code: number, reason: string): void;
  /** Stops reading the socket (TCP then holds the peer back); absent where the server cannot. */
  pause?(): void;
  resume?(): void;
}

/** What the server hands on from the socket. */
export interface ChannelSocketEvents {
  text(text: string): void;
  /** `bytes` must stay valid: a server reusing its buffer copies first. */
  binary(bytes: Uint8Array): void;
  closed(code: number, reason: string): void;
}

/** Bytes a reader's socket may have unsent before the channel waits for it. */
export const SOCKET_HIGH_WATER = 1024 * 1024;
/** Bytes a channel may hold from a writer whose socket cannot be paused, before it is closed. */
export const OVERFLOW_BYTES = 16 * 1024 * 1024;
const POLL_MS = 5;

/** Connects `socket` to `direction` of `channel` (claimed for it); call once the socket is open. */
export function attachChannelSocket(
  channel: Channel,
  direction: Direction,
  socket: ChannelSocket,
  log: Logger,
): ChannelSocketEvents {
  return direction === "write" ? writeEnd(channel, socket, log) : readEnd(channel, socket);
}

function writeEnd(channel: Channel, socket: ChannelSocket, log: Logger): ChannelSocketEvents {
  let open = true;
  channel.onReaderGone = (removed) => {
    if (!open) return;
    // A close reason has at most 123 bytes; ours are ASCII.
    socket.close(
      1000,
      removed === undefined ? "reader closed" : `removed: ${removed}`.slice(0, 120),
    );
  };
  // Removed between its claim and its socket opening (the request it served ended meanwhile).
  if (channel.readerGone) socket.close(1000, "reader closed");
  const push = (frame: string | Uint8Array) => {
    const outcome = channel.push(frame);
    if (outcome !== "full") return;
    if (socket.pause && socket.resume) {
      socket.pause();
      channel.whenRoom().then(() => socket.resume!());
    } else if (channel.queuedBytes > Math.max(OVERFLOW_BYTES, channel.maxQueuedBytes)) {
      const why = `the reader is not keeping up: ${channel.queuedBytes} bytes held`;
      log.warn(`Channel ${JSON.stringify(channel.id)}: writer closed: ${why}`);
      channel.endWrite(why);
      socket.close(1008, "reader not keeping up");
    }
  };
  return {
    text: push,
    binary: push,
    closed: (code, reason) => {
      open = false;
      if (channel.writeEnded) return;
      if (code === 1000 || code === 1005) return channel.endWrite();
      const how = code === 0 || code === 1006 ? "no close frame" : `close code ${code}`;
      const why = `its writer disconnected before closing it (${how}${
        reason ? `, ${JSON.stringify(reason.slice(0, 100))}` : ""
      })`;
      log.warn(`Channel ${JSON.stringify(channel.id)}: ${why}`);
      channel.endWrite(why);
    },
  };
}

function readEnd(channel: Channel, socket: ChannelSocket): ChannelSocketEvents {
  let open = true;
  const pump = async () => {
    try {
      for (;;) {
        const frame = await channel.read();
        if (!open) return;
        if (frame === null) return socket.close(1000, "stream_complete");
        if (typeof frame === "string") socket.send(frame);
        else socket.sendBinary(frame);
        while (open && socket.bufferedAmount > SOCKET_HIGH_WATER) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
        if (!open) return;
      }
    } catch (e) {
      if (!open) return;
      if (e instanceof ChannelBroken) socket.close(1011, "writer broke off");
      else socket.close(1011, "internal error");
    }
  };
  pump();
  return {
    text: () => {},
    binary: () => {},
    closed: () => {
      open = false;
      channel.endRead();
    },
  };
}

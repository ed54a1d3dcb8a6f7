/**
 * Channels for built-in workers, which run in the engine's process and hold
 * a channel's end without a socket: the {@linkcode ChannelApi} of
 * `EngineApi.channels`.
 *
 * @example
 * ```ts ignore
 * const { reader, writer } = api.channels!.create({ bufferSize: 8 });
 * // hand `reader` to a worker in a call's payload, then write:
 * const out = api.channels!.openWriter(writer);
 * await out.write(new TextEncoder().encode("hello"));
 * out.close();
 * ```
 * @module
 */
import type { Channel, ChannelFrame, Direction } from "./channel.ts";
import type { ChannelRegistry, Reservation } from "./registry.ts";

/** A channel end as it crosses the wire (`request_body`, `response`, `createChannel()`). */
export interface ChannelRef {
  channel_id: string;
  access_key: string;
  direction: Direction;
}

/** The read end, held in this process. */
export interface ChannelReadEnd {
  /** The next frame (a string is a text message, bytes are data); `null` at the end. Rejects with `ChannelBroken` when the writer broke off. */
  read(): Promise<ChannelFrame | null>;
  /** Stops reading: the rest is dropped and the writer's socket closed. */
  close(): void;
}

/** The write end, held in this process. */
export interface ChannelWriteEnd {
  /** Queues a frame; resolves once the queue is below its bound again (backpressure). */
  write(frame: ChannelFrame): Promise<void>;
  /** Whether the reader went away (later writes are dropped). */
  readonly readerGone: boolean;
  /** Ends the data; with `broken`, breaks it off instead (the reader sees an error). */
  close(broken?: string): void;
}

/** `EngineApi.channels`: data channels for a built-in worker. */
export interface ChannelApi {
  /** A new channel (`engine::channels::create`); hand its refs on in a payload. */
  create(options?: { bufferSize?: number }): { writer: ChannelRef; reader: ChannelRef };
  /** Claims the read end of `ref` here; throws when it cannot be claimed (unknown, wrong key, taken). */
  openReader(ref: ChannelRef): ChannelReadEnd;
  /** Claims the write end of `ref` here; throws as {@linkcode openReader} does. */
  openWriter(ref: ChannelRef): ChannelWriteEnd;
  /**
   * Serves reservations for ids starting with `prefix` (see
   * `ChannelRegistry.reserveSource`): a channel is made only when a socket
   * claims an end ({@linkcode Reservation.open}, which calls {@linkcode add}),
   * so refs nobody opens cost the engine nothing. Returns the undoing.
   */
  reserveSource(prefix: string, lookup: (id: string) => Reservation | undefined): () => void;
  /** Removes channel `id`, if one was made: an open end is ended with `reason`. */
  remove(id: string, reason: string): void;
  /** Registers a channel under `id` (from a reservation's `open`). */
  add(init: { id: string; key: string; bufferSize: number }): Channel;
  /** Channels the engine holds, every worker's (reservations not counted). */
  readonly size: number;
}

export function channelApi(registry: ChannelRegistry, owner: string): ChannelApi {
  const claim = (ref: ChannelRef, direction: Direction): Channel => {
    const outcome = registry.claim(ref.channel_id, ref.access_key, direction);
    if (outcome.kind === "refused") throw new Error(outcome.message);
    return outcome.channel;
  };
  return {
    create(options = {}) {
      const channel = registry.create({ ...options, owner });
      const ref = { channel_id: channel.id, access_key: channel.key };
      return {
        writer: { ...ref, direction: "write" },
        reader: { ...ref, direction: "read" },
      };
    },
    openReader: (ref) => readEnd(claim(ref, "read")),
    openWriter: (ref) => writeEnd(claim(ref, "write")),
    reserveSource: (prefix, lookup) => registry.reserveSource(prefix, lookup),
    remove: (id, reason) => registry.remove(id, reason),
    add: (init) => registry.add(init),
    get size() {
      return registry.size;
    },
  };
}

/** The read end of `channel`, claimed for this process. */
export function readEnd(channel: Channel): ChannelReadEnd {
  return { read: () => channel.read(), close: () => channel.endRead() };
}

/** The write end of `channel`, claimed for this process. */
export function writeEnd(channel: Channel): ChannelWriteEnd {
  return {
    write: (frame) => channel.push(frame) === "full" ? channel.whenRoom() : Promise.resolve(),
    get readerGone() {
      return channel.readerGone;
    },
    close: (broken) => channel.endWrite(broken),
  };
}

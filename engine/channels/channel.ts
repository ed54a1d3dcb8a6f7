/**
 * One data channel: a queue of frames from its write end to its read end,
 * bounded by `bufferSize` frames and by `maxQueuedBytes` (default
 * {@linkcode MAX_QUEUED_BYTES}), whichever is reached first. Text frames are messages, binary frames
 * data. Pure: no sockets or timers; the ends (a socket, or a built-in worker
 * in this process) drive it.
 *
 * - The writer {@linkcode Channel.push}es frames; past the bound it is told
 *   `"full"` and waits for {@linkcode Channel.whenRoom} (a socket stops
 *   reading, an in-process writer awaits).
 * - The reader {@linkcode Channel.read}s them in order; `null` once the writer
 *   ended and the queue is empty; a rejection with {@linkcode ChannelBroken}
 *   (after the frames queued before it) when the writer broke off.
 * - Either end can go: the writer {@linkcode Channel.endWrite}s (normally or
 *   broken), the reader {@linkcode Channel.endRead}s (the queue is dropped and
 *   later frames with it, and `onReaderGone` tells the writer's holder).
 *
 * @module
 */

/** A text frame (a message) or a binary frame (data). */
export type ChannelFrame = string | Uint8Array;

export type Direction = "read" | "write";

/**
 * Bytes queued in a channel before its writer is held back: 64 of the SDKs'
 * 64 KiB chunks, so that a channel of the default 64 frames fed by an SDK is
 * held back by either bound alike. A frame is queued whole, so a channel
 * holds at most this plus one frame (a frame can be up to 64 MiB - 1).
 */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** The reader's error when the writer broke off: it disconnected, or failed. */
export class ChannelBroken extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChannelBroken";
  }
}

/** What {@linkcode Channel.push} did with a frame. */
export type PushOutcome = "ok" | "full" | "gone";

export interface ChannelInit {
  id: string;
  key: string;
  bufferSize: number;
  /** Default {@linkcode MAX_QUEUED_BYTES}. */
  maxQueuedBytes?: number;
  /** The connection that created it, if any (see `ChannelRegistry.removeOwnedBy`). */
  owner?: string | undefined;
  /** When it was created, in ms (the registry's clock). */
  createdAt: number;
}

export class Channel {
  readonly id: string;
  readonly key: string;
  readonly bufferSize: number;
  readonly maxQueuedBytes: number;
  readonly owner: string | undefined;
  readonly createdAt: number;
  /**
   * Called once the reader went away while the writer was still writing (its
   * holder closes its socket); with `removed`, the channel was removed, and
   * why (the request it served ended, it expired).
   */
  onReaderGone: ((removed?: string) => void) | undefined;
  /** Called once both ends are done (the registry forgets the channel). */
  onFinished: (() => void) | undefined;
  #frames: ChannelFrame[] = [];
  #bytes = 0;
  #claimedRead = false;
  #claimedWrite = false;
  /** The writer is done: `null` normally, else why it broke off. */
  #writerEnd: string | null | undefined;
  #readerGone = false;
  #readWaiter:
    | { resolve: (f: ChannelFrame | null) => void; reject: (e: Error) => void }
    | undefined;
  #roomWaiters: (() => void)[] = [];

  constructor(init: ChannelInit) {
    this.id = init.id;
    this.key = init.key;
    this.bufferSize = init.bufferSize;
    this.maxQueuedBytes = init.maxQueuedBytes ?? MAX_QUEUED_BYTES;
    this.owner = init.owner;
    this.createdAt = init.createdAt;
  }

  /** Whether `direction`'s end has been claimed. */
  claimed(direction: Direction): boolean {
    return direction === "read" ? this.#claimedRead : this.#claimedWrite;
  }

  /** Claims an end; `false` when it was claimed already. */
  claim(direction: Direction): boolean {
    if (this.claimed(direction)) return false;
    if (direction === "read") this.#claimedRead = true;
    else this.#claimedWrite = true;
    return true;
  }

  /** Frames queued and not yet read. */
  get queued(): number {
    return this.#frames.length;
  }

  /** Bytes of the frames queued (a text frame counts its UTF-16 length). */
  get queuedBytes(): number {
    return this.#bytes;
  }

  /** Whether the writer is done (ended or broke off). */
  get writeEnded(): boolean {
    return this.#writerEnd !== undefined;
  }

  get readerGone(): boolean {
    return this.#readerGone;
  }

  /**
   * Queues `frame` for the reader: `"ok"`, `"full"` (queued, and the queue is
   * at one of its bounds, frames or bytes: wait for {@linkcode whenRoom} before the next), or `"gone"`
   * (the reader went away or the writer ended: dropped).
   */
  push(frame: ChannelFrame): PushOutcome {
    if (this.#readerGone || this.#writerEnd !== undefined) return "gone";
    const waiter = this.#readWaiter;
    if (waiter !== undefined) {
      this.#readWaiter = undefined;
      waiter.resolve(frame);
      return "ok";
    }
    this.#frames.push(frame);
    this.#bytes += sizeOf(frame);
    return this.#hasRoom() ? "ok" : "full";
  }

  /** Resolves once the queue is below its bounds, or the reader is gone. */
  whenRoom(): Promise<void> {
    if (this.#hasRoom() || this.#readerGone) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** The writer is done: normally (no `broken`), or broken off, with why. */
  endWrite(broken?: string): void {
    if (this.#writerEnd !== undefined) return;
    this.#writerEnd = broken ?? null;
    const waiter = this.#readWaiter;
    if (waiter !== undefined && this.#frames.length === 0) {
      this.#readWaiter = undefined;
      if (broken === undefined) waiter.resolve(null);
      else waiter.reject(new ChannelBroken(broken));
    }
    this.#finishIfDone();
  }

  /**
   * The next frame; `null` once the writer ended and all was read. Rejects
   * with {@linkcode ChannelBroken} when the writer broke off. One read at a time.
   */
  read(): Promise<ChannelFrame | null> {
    const frame = this.#frames.shift();
    if (frame !== undefined) {
      this.#bytes -= sizeOf(frame);
      if (this.#roomWaiters.length > 0 && this.#hasRoom()) this.#wakeWriters();
      return Promise.resolve(frame);
    }
    if (this.#writerEnd === null) return Promise.resolve(null);
    if (this.#writerEnd !== undefined) return Promise.reject(new ChannelBroken(this.#writerEnd));
    if (this.#readerGone) return Promise.resolve(null);
    return new Promise((resolve, reject) => this.#readWaiter = { resolve, reject });
  }

  /**
   * The reader went away: the queue is dropped, the writer told; with no
   * writer yet, the channel is done (a writer's later claim finds none).
   */
  endRead(): void {
    if (this.#readerGone) return;
    this.#readerGone = true;
    this.#frames = [];
    this.#bytes = 0;
    this.#readWaiter?.resolve(null);
    this.#readWaiter = undefined;
    this.#wakeWriters();
    if (this.#writerEnd === undefined) this.onReaderGone?.();
    // No writer can come to a channel nobody reads: it is done (the registry forgets it).
    if (!this.#claimedWrite && this.#writerEnd === undefined) this.#writerEnd = null;
    this.#finishIfDone();
  }

  /**
   * Ends both sides at once (the registry removing it): a reader still there
   * sees the channel broken off with `reason`, a writer still there is told
   * ({@linkcode onReaderGone} with `reason`) so that its socket is closed.
   */
  destroy(reason: string): void {
    const writer = this.#writerEnd === undefined && !this.#readerGone
      ? this.onReaderGone
      : undefined;
    this.onReaderGone = undefined;
    this.endWrite(reason);
    this.endRead();
    writer?.(reason);
  }

  #hasRoom(): boolean {
    return this.#frames.length < this.bufferSize && this.#bytes < this.maxQueuedBytes;
  }

  #wakeWriters(): void {
    for (const wake of this.#roomWaiters.splice(0)) wake();
  }

  #finishIfDone(): void {
    if (this.#writerEnd !== undefined && this.#readerGone) {
      const done = this.onFinished;
      this.onFinished = undefined;
      done?.();
    }
  }
}

function sizeOf(frame: ChannelFrame): number {
  return typeof frame === "string" ? frame.length : frame.byteLength;
}

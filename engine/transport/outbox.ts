/**
 * Frames on their way to a client, written in batches: every frame sent
 * during one turn of the event loop is encoded into one buffer, and that
 * buffer goes out with one `write` from a microtask. While a write is in
 * progress (the peer reads slowly, or a write took only part of the bytes)
 * new frames collect in a second buffer, which is written next; the bytes
 * of both count as {@linkcode bufferedAmount}.
 *
 * Every ping gets its pong while the pongs waiting in the next buffer stay
 * under {@linkcode PONG_BUDGET} bytes; past it only the most recent ping is
 * answered, at the end of that buffer (RFC 6455 §5.5.3 allows that): a
 * client that pings and never reads fills no memory with pongs.
 *
 * @module
 */
import { Opcode } from "../../sdk/typescript/websocket/frame.ts";

const DEFAULT_BUFFER = 64 * 1024;
/** A buffer grown beyond this for a burst is let go once written. */
const KEEP_BUFFER = 1024 * 1024;
const encoder = new TextEncoder();
/** Bytes of pongs one buffer holds before later pings get a single pong, for the latest. */
export const PONG_BUDGET = 4096;

export interface OutboxOptions {
  /** Called once when a write fails; nothing is written after it. */
  onError: (error: unknown) => void;
  bufferBytes?: number;
}

export class Outbox {
  #conn: Pick<Deno.Conn, "write">;
  #onError: (error: unknown) => void;
  #initial: number;
  /** Frames not handed to a write yet. */
  #buf: Uint8Array;
  #len = 0;
  /** The buffer being written (from `#writeAt` to `#writeEnd`), or undefined. */
  #writing: Uint8Array | undefined;
  #writeAt = 0;
  #writeEnd = 0;
  #spare: Uint8Array | undefined;
  #scheduled = false;
  #failed = false;
  #drained: (() => void)[] = [];
  /** Bytes of the pongs in `#buf`. */
  #pongBytes = 0;
  /** The payload of the latest ping not answered within the budget. */
  #latePong: Uint8Array | undefined;

  constructor(conn: Pick<Deno.Conn, "write">, options: OutboxOptions) {
    this.#conn = conn;
    this.#onError = options.onError;
    this.#initial = options.bufferBytes ?? DEFAULT_BUFFER;
    this.#buf = new Uint8Array(this.#initial);
  }

  /** Bytes queued and not yet written. */
  get bufferedAmount(): number {
    return this.#len + this.#writeEnd - this.#writeAt;
  }

  /** Queues bytes as they are (the handshake response). */
  raw(bytes: Uint8Array): void {
    this.#reserve(bytes.length);
    this.#buf.set(bytes, this.#len);
    this.#len += bytes.length;
    this.#schedule();
  }

  /** Queues a text frame, its UTF-8 encoded straight into the outgoing buffer. */
  text(text: string): void {
    const chars = text.length;
    // Bytes are at least as many as UTF-16 units: the header is sized for that, and moved
    // along in the rare case the UTF-8 needs a longer length field.
    const head = headerLength(chars);
    this.#reserve(head + chars);
    let { read, written } = encoder.encodeInto(text, this.#buf.subarray(this.#len + head));
    while (read < chars) {
      // Not ASCII: room for 3 bytes per remaining unit (a surrogate pair's 4 bytes take 2 units).
      this.#reserve(head + written + (chars - read) * 3, head + written);
      const more = encoder.encodeInto(
        text.slice(read),
        this.#buf.subarray(this.#len + head + written),
      );
      read += more.read;
      written += more.written;
    }
    const actual = headerLength(written);
    if (actual !== head) {
      this.#reserve(actual + written, head + written);
      this.#buf.copyWithin(this.#len + actual, this.#len + head, this.#len + head + written);
    }
    writeHeader(this.#buf, this.#len, Opcode.Text, written);
    this.#len += actual + written;
    this.#schedule();
  }

  /** Queues a frame with `payload` (a control frame: close, ping, pong). */
  frame(opcode: number, payload: Uint8Array): void {
    // Nothing follows a close frame: a pong still owed is not sent.
    if (opcode === Opcode.Close) this.#latePong = undefined;
    this.#encode(opcode, payload);
    this.#schedule();
  }

  /** Queues the pong answering a ping with `payload` (see {@linkcode PONG_BUDGET}). */
  pong(payload: Uint8Array): void {
    if (this.#pongBytes >= PONG_BUDGET) {
      this.#latePong = payload.slice();
      return;
    }
    this.#pongBytes += 2 + payload.length;
    this.frame(Opcode.Pong, payload);
  }

  /** Resolves once everything queued so far is written (or writing failed). */
  drained(): Promise<void> {
    if (this.bufferedAmount === 0 || this.#failed) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing !== undefined || this.#failed) return;
    this.#scheduled = true;
    queueMicrotask(this.#flush);
  }

  #flush = (): void => {
    this.#scheduled = false;
    if (this.#writing !== undefined || this.#failed) return;
    if (this.#latePong !== undefined) {
      this.#encode(Opcode.Pong, this.#latePong);
      this.#latePong = undefined;
    }
    if (this.#len === 0) return this.#settle();
    this.#writing = this.#buf;
    this.#pongBytes = 0;
    this.#writeAt = 0;
    this.#writeEnd = this.#len;
    this.#buf = this.#spare ?? new Uint8Array(this.#initial);
    this.#spare = undefined;
    this.#len = 0;
    this.#pump();
  };

  async #pump(): Promise<void> {
    const buf = this.#writing!;
    try {
      while (this.#writeAt < this.#writeEnd) {
        this.#writeAt += await this.#conn.write(buf.subarray(this.#writeAt, this.#writeEnd));
      }
    } catch (e) {
      this.#failed = true;
      this.#writing = undefined;
      this.#writeAt = this.#writeEnd = this.#len = 0;
      this.#settle();
      return this.#onError(e);
    }
    this.#writing = undefined;
    this.#writeAt = this.#writeEnd = 0;
    if (buf.length <= KEEP_BUFFER) this.#spare = buf;
    // What was sent while this write was in progress goes out now.
    this.#flush();
  }

  #encode(opcode: number, payload: Uint8Array): void {
    const head = headerLength(payload.length);
    this.#reserve(head + payload.length);
    writeHeader(this.#buf, this.#len, opcode, payload.length);
    this.#buf.set(payload, this.#len + head);
    this.#len += head + payload.length;
  }

  #settle(): void {
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Room for `n` more bytes after `#len`, keeping the first `partial` of them (a frame half-encoded). */
  #reserve(n: number, partial = 0): void {
    const need = this.#len + n;
    if (need <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(need, this.#buf.length * 2));
    grown.set(this.#buf.subarray(0, this.#len + partial));
    this.#buf = grown;
  }
}

function headerLength(len: number): number {
  return len < 126 ? 2 : len < 65536 ? 4 : 10;
}

/** An unmasked, final frame's header at `at`. */
function writeHeader(out: Uint8Array, at: number, opcode: number, len: number): void {
  out[at] = 0x80 | opcode;
  if (len < 126) {
    out[at + 1] = len;
  } else if (len < 65536) {
    out[at + 1] = 126;
    out[at + 2] = len >>> 8;
    out[at + 3] = len & 0xff;
  } else {
    out[at + 1] = 127;
    const high = Math.floor(len / 2 ** 32);
    out[at + 2] = 0;
    out[at + 3] = 0;
    out[at + 4] = (high >>> 8) & 0xff;
    out[at + 5] = high & 0xff;
    out[at + 6] = len >>> 24 & 0xff;
    out[at + 7] = (len >>> 16) & 0xff;
    out[at + 8] = (len >>> 8) & 0xff;
    out[at + 9] = len & 0xff;
  }
}

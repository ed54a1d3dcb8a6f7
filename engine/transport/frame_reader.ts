/**
 * RFC 6455 frames from a client, parsed where they are read: the connection
 * reads into this reader's buffer, frames are unmasked in place and handed
 * on as views of it, fragmented messages are put together in a second
 * buffer (text ones decoded fragment by fragment, so that invalid UTF-8
 * fails the connection at once). Text is checked to be UTF-8. Every violation throws a
 * {@linkcode FrameError} carrying the close code to fail the connection with.
 *
 * @module
 */
import { FrameError, Opcode } from "../../sdk/typescript/websocket/frame.ts";

export { FrameError, Opcode };

/** What a reader hands on. Byte views are valid only during the call. */
export interface FrameHandler {
  text(text: string): void;
  binary(bytes: Uint8Array): void;
  ping(payload: Uint8Array): void;
  pong(): void;
  /** A close frame; `code` is undefined when it carried none. No frame follows. */
  close(code: number | undefined, reason: string): void;
}

export interface FrameReaderOptions {
  /** Largest message (all its fragments); a larger one fails with 1009. */
  maxMessageBytes: number;
  /** Initial size of the read buffer. */
  bufferBytes?: number;
  /**
   * At most this many frames are handed on per {@linkcode FrameReader.advance}
   * or {@linkcode FrameReader.resume}; the rest wait for `resume()` (default:
   * no limit).
   */
  framesPerParse?: number;
}

const DEFAULT_BUFFER = 64 * 1024;
/** A buffer grown beyond this for one large message is let go once it is empty. */
const KEEP_BUFFER = 1024 * 1024;

// ignoreBOM keeps a leading U+FEFF: a message's text is exactly what was sent.
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class FrameReader {
  #handler: FrameHandler;
  #max: number;
  #initial: number;
  #buf: Uint8Array;
  /** The same memory as `#buf`, for unmasking a word at a time. */
  #words: Uint32Array;
  #start = 0;
  #end = 0;
  /** Opcode of the fragmented message in progress, 0 when none. */
  #fragOpcode = 0;
  #frag: Uint8Array | undefined;
  /** Bytes of the fragmented message so far. */
  #fragLen = 0;
  /** The fragmented text message so far, decoded by `#utf8` (which holds a character cut short). */
  #fragText = "";
  #utf8: TextDecoder | undefined;
  #closed = false;
  /** After a 1009 ({@linkcode discard}): data frames are dropped as they arrive. */
  #discarding = false;
  /** Bytes still to drop, from the unparsed start: the rest of a frame being discarded. */
  #skip = 0;
  /** The length (header included) of the frame refused with 1009, from the unparsed start. */
  #refused = 0;
  /** Frames handed on per parse before it stops (`framesPerParse`); 0: no limit. */
  #perParse: number;
  /** Complete frames are left over from a parse stopped at its limit: {@linkcode resume}. */
  pending = false;

  constructor(handler: FrameHandler, options: FrameReaderOptions) {
    this.#handler = handler;
    this.#max = options.maxMessageBytes;
    this.#initial = options.bufferBytes ?? DEFAULT_BUFFER;
    this.#perParse = options.framesPerParse ?? 0;
    this.#buf = new Uint8Array(this.#initial);
    this.#words = new Uint32Array(this.#buf.buffer, 0, this.#buf.length >>> 2);
  }

  /** Whether a close frame has been read (everything after it is ignored). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Free space to read into; pass the count read to {@linkcode advance}. */
  space(): Uint8Array {
    if (this.#end === this.#buf.length) this.#reserve(this.#buf.length - this.#start + 1);
    return this.#buf.subarray(this.#end);
  }

  /** Takes `n` bytes read into {@linkcode space} and hands on every frame now complete. */
  advance(n: number): void {
    this.#end += n;
    this.#parse();
  }

  /** Copies `bytes` in and hands on every frame now complete. */
  push(bytes: Uint8Array): void {
    for (let off = 0; off < bytes.length && !this.#closed;) {
      const space = this.space();
      const n = Math.min(space.length, bytes.length - off);
      space.set(bytes.subarray(off, off + n));
      off += n;
      this.advance(n);
    }
  }

  /**
   * After a message over the limit (a 1009 thrown), reads on without keeping
   * it: the rest of that message and every data frame after it are dropped
   * as they arrive, control frames are handed on as before (the client's
   * close frame ends the reading). A client still sending the message then
   * reads the close frame: a connection closed with its bytes unread is
   * reset, and the client sees a broken pipe instead. Parses what the buffer
   * holds at once.
   */
  discard(): void {
    this.#discarding = true;
    this.#skip = this.#refused;
    this.#fragOpcode = this.#fragLen = 0;
    this.#fragText = "";
    this.#frag = this.#utf8 = undefined;
    this.#parse();
  }

  /** Goes on parsing after a stop at the limit. */
  resume(): void {
    this.#parse();
  }

  #parse(): void {
    const buf = this.#buf;
    let count = 0;
    this.pending = false;
    while (!this.#closed) {
      if (this.#perParse > 0 && count++ >= this.#perParse) {
        this.pending = true;
        return;
      }
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, this.#end - this.#start);
        this.#start += n;
        this.#skip -= n;
        if (this.#skip > 0) break;
      }
      const start = this.#start;
      const avail = this.#end - start;
      if (avail < 2) break;
      const b0 = buf[start]!, b1 = buf[start + 1]!;
      if (b0 & 0x70) {
        throw new FrameError(1002, "Reserved bits set in a frame (no extension was negotiated)");
      }
      if (!(b1 & 0x80)) throw new FrameError(1002, "Unmasked frame from the client");
      const opcode = b0 & 0x0f;
      const fin = (b0 & 0x80) !== 0;
      let len = b1 & 0x7f;
      let headLen = 6;
      if (len === 126) {
        if (avail < 4) break;
        len = (buf[start + 2]! << 8) | buf[start + 3]!;
        headLen = 8;
      } else if (len === 127) {
        if (avail < 10) break;
        const high = readUint32(buf, start + 2);
        const low = readUint32(buf, start + 6);
        if (high >= 0x80000000) {
          throw new FrameError(1002, "Frame length with its most significant bit set");
        }
        // Anything from 2^32 on is far beyond any limit.
        len = high === 0 ? low : Infinity;
        headLen = 14;
      }
      if (opcode >= 0x8) {
        if (opcode > Opcode.Pong) throw badOpcode(opcode);
        if (len > 125 || !fin) {
          throw new FrameError(
            1002,
            "Control frames must be unfragmented and at most 125 bytes",
          );
        }
      } else if (opcode > Opcode.Binary) throw badOpcode(opcode);
      else if (this.#discarding) {
        this.#skip = headLen + len;
        continue;
      } else if (this.#fragLen + len > this.#max) {
        this.#refused = headLen + len;
        throw tooBig(this.#fragLen + len, this.#max, this.#fragLen > 0 || !fin);
      }
      const frameLen = headLen + len;
      if (avail < frameLen) {
        if (start + frameLen > buf.length) this.#reserve(frameLen);
        break;
      }
      const at = start + headLen;
      if (len > 0) this.#unmask(at - 4, at, len);
      this.#start = start + frameLen;
      this.#frame(opcode, fin, buf.subarray(at, at + len));
    }
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
      if (this.#buf.length > KEEP_BUFFER) this.#replace(new Uint8Array(this.#initial));
    }
  }

  #frame(opcode: number, fin: boolean, payload: Uint8Array): void {
    switch (opcode) {
      case Opcode.Ping:
        return this.#handler.ping(payload);
      case Opcode.Pong:
        return this.#handler.pong();
      case Opcode.Close:
        return this.#close(payload);
      case Opcode.Continuation:
        if (this.#fragOpcode === 0) {
          throw new FrameError(1002, "Continuation frame without a message to continue");
        }
        return this.#fragment(payload, fin);
      default:
        if (this.#fragOpcode !== 0) {
          throw new FrameError(1002, "New data frame while a fragmented message is incomplete");
        }
        if (fin) return this.#message(opcode, payload);
        this.#fragOpcode = opcode;
        this.#fragment(payload, false);
    }
  }

  /** Adds a fragment to the message in progress, and hands the message on after its last. */
  #fragment(payload: Uint8Array, fin: boolean): void {
    if (this.#fragOpcode !== Opcode.Text) this.#append(payload);
    else {
      this.#fragLen += payload.length;
      this.#utf8 ??= new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      try {
        this.#fragText += this.#utf8.decode(payload, { stream: !fin });
      } catch {
        throw new FrameError(1007, "Text message is not valid UTF-8");
      }
    }
    if (!fin) return;
    const kind = this.#fragOpcode, length = this.#fragLen;
    this.#fragOpcode = 0;
    this.#fragLen = 0;
    if (kind === Opcode.Text) {
      const text = this.#fragText;
      this.#fragText = "";
      return this.#handler.text(text);
    }
    const message = this.#frag!.subarray(0, length);
    if (this.#frag!.length > KEEP_BUFFER) this.#frag = undefined;
    this.#handler.binary(message);
  }

  #message(opcode: number, bytes: Uint8Array): void {
    if (opcode === Opcode.Binary) return this.#handler.binary(bytes);
    this.#handler.text(decodeText(bytes, "Text message"));
  }

  #close(payload: Uint8Array): void {
    this.#closed = true;
    if (payload.length === 0) return this.#handler.close(undefined, "");
    if (payload.length === 1) throw new FrameError(1002, "Close frame with a 1-byte payload");
    const code = (payload[0]! << 8) | payload[1]!;
    if (!validCloseCode(code)) throw new FrameError(1002, `Invalid close code ${code}`);
    this.#handler.close(code, decodeText(payload.subarray(2), "Close reason"));
  }

  #append(payload: Uint8Array): void {
    const need = this.#fragLen + payload.length;
    if (this.#frag === undefined || this.#frag.length < need) {
      // Doubling, but never past the largest message (`need` is within it: checked per frame).
      const grown = new Uint8Array(
        Math.min(Math.max(need, (this.#frag?.length ?? 0) * 2, 4096), Math.max(need, this.#max)),
      );
      if (this.#frag) grown.set(this.#frag.subarray(0, this.#fragLen));
      this.#frag = grown;
    }
    this.#frag.set(payload, this.#fragLen);
    this.#fragLen = need;
  }

  /** Makes room for `n` bytes from the unparsed start: moves them to the front, or grows. */
  #reserve(n: number): void {
    const pending = this.#end - this.#start;
    const target = n <= this.#buf.length
      ? this.#buf
      : new Uint8Array(Math.max(n, this.#buf.length * 2));
    target.set(this.#buf.subarray(this.#start, this.#end), 0);
    if (target !== this.#buf) this.#replace(target);
    this.#start = 0;
    this.#end = pending;
  }

  #replace(buf: Uint8Array): void {
    this.#buf = buf;
    this.#words = new Uint32Array(buf.buffer, 0, buf.length >>> 2);
  }

  /** XORs `len` bytes from `at` with the 4-byte key at `keyAt`, a 32-bit word at a time. */
  #unmask(keyAt: number, at: number, len: number): void {
    const buf = this.#buf;
    const k0 = buf[keyAt]!, k1 = buf[keyAt + 1]!, k2 = buf[keyAt + 2]!, k3 = buf[keyAt + 3]!;
    const end = at + len;
    let i = at;
    // Up to a 4-byte boundary of the buffer (which starts at offset 0 of its own memory).
    for (; i < end && (i & 3) !== 0; i++) buf[i]! ^= keyByte(i - at, k0, k1, k2, k3);
    const words = (end - i) >>> 2;
    if (words > 0) {
      const s = i - at;
      const m0 = keyByte(s, k0, k1, k2, k3), m1 = keyByte(s + 1, k0, k1, k2, k3);
      const m2 = keyByte(s + 2, k0, k1, k2, k3), m3 = keyByte(s + 3, k0, k1, k2, k3);
      const mask = LITTLE_ENDIAN
        ? (m0 | (m1 << 8) | (m2 << 16) | (m3 << 24)) >>> 0
        : ((m0 << 24) | (m1 << 16) | (m2 << 8) | m3) >>> 0;
      const w = this.#words;
      const first = i >>> 2;
      for (let j = first, last = first + words; j < last; j++) w[j]! ^= mask;
      i += words * 4;
    }
    for (; i < end; i++) buf[i]! ^= keyByte(i - at, k0, k1, k2, k3);
  }
}

function keyByte(offset: number, k0: number, k1: number, k2: number, k3: number): number {
  switch (offset & 3) {
    case 0:
      return k0;
    case 1:
      return k1;
    case 2:
      return k2;
    default:
      return k3;
  }
}

function readUint32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/**
 * The 1009 of a message of `bytes` (its first frames only, when `partial`)
 * over `max`. The reason fits a close frame (123 bytes).
 */
function tooBig(bytes: number, max: number, partial: boolean): FrameError {
  // A length from 2^32 on is read as Infinity.
  const size = Number.isFinite(bytes) ? bytes : 2 ** 32;
  const more = partial || !Number.isFinite(bytes) ? " or more" : "";
  return new FrameError(1009, `Message of ${size} bytes${more} exceeds the limit of ${max} bytes`);
}

function badOpcode(opcode: number): FrameError {
  return new FrameError(1002, `Unknown opcode 0x${opcode.toString(16)}`);
}

/**
 * UTF-8 text, or 1007. The lenient decoder marks invalid bytes with U+FFFD;
 * only text containing that character (never ASCII text, and V8 answers that
 * at once for a one-byte string) is decoded again strictly.
 */
function decodeText(bytes: Uint8Array, what: string): string {
  const text = lenient.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return strict.decode(bytes);
  } catch {
    throw new FrameError(1007, `${what} is not valid UTF-8`);
  }
}

/** Codes a peer may send (RFC 6455 §7.4): 1000-1003, 1007-1014, 3000-4999. */
function validCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
    (code >= 3000 && code <= 4999);
}

/**
 * RFC 6455 framing for a WebSocket client: encoding masked frames and
 * parsing the server's unmasked frames from a byte stream.
 *
 * @module
 */

import { randomFillSync } from "node:crypto";

/** Frame opcodes (RFC 6455 §5.2). */
export const Opcode = {
  Continuation: 0x0,
  Text: 0x1,
  Binary: 0x2,
  Close: 0x8,
  Ping: 0x9,
  Pong: 0xa,
} as const;

/** One parsed frame. */
export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Uint8Array;
}

/**
 * A violation of the protocol by the peer; `code` is the close code to fail
 * the connection with (1002 protocol error, 1009 message too big, …).
 *
 * @example
 * ```ts
 * const err = new FrameError(1009, "Message too big: 70000 bytes");
 * console.log(err.code); // 1009
 * ```
 */
export class FrameError extends Error {
  /** Close code to fail the connection with. */
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "FrameError";
    this.code = code;
  }
}

/**
 * Encodes one frame. The client masks every frame (RFC 6455 §5.3); the header
 * and payload are returned as one buffer so the caller writes them in a single
 * `write()` call, which avoids the Nagle/delayed-ACK stall of split writes.
 *
 * @example
 * ```ts
 * const bytes = encodeFrame(Opcode.Text, new TextEncoder().encode("hi"));
 * console.log(bytes.length); // 2 header + 4 mask + 2 payload = 8
 * ```
 */
export function encodeFrame(
  opcode: number,
  payload: Uint8Array,
  mask = true,
  fin = true,
): Uint8Array {
  const len = payload.length;
  const headerLen = headerLength(len, mask);
  const out = allocate(headerLen + len);
  writeHeader(out, opcode, len, mask, fin);
  out.set(payload, headerLen);
  if (mask) maskPayload(out, headerLen, len);
  return out;
}

/**
 * Encodes a masked text frame straight from a string: the UTF-8 bytes are
 * written into the frame itself, with no intermediate buffer. Text that is
 * all ASCII (most JSON) is encoded in one pass into a frame of exact size;
 * other text is measured by encoding it first.
 *
 * @example
 * ```ts
 * const bytes = encodeTextFrame("hi");
 * console.log(bytes.length, bytes[0]); // 8 129 (FIN + text opcode)
 * ```
 */
export function encodeTextFrame(text: string): Uint8Array {
  const len = text.length;
  const headerLen = headerLength(len, true);
  const out = allocate(headerLen + len);
  // As many bytes as UTF-16 units only if every unit is ASCII; otherwise not all of it fits.
  if (textEncoder.encodeInto(text, out.subarray(headerLen)).read !== len) {
    return encodeFrame(Opcode.Text, textEncoder.encode(text));
  }
  writeHeader(out, Opcode.Text, len, true, true);
  maskPayload(out, headerLen, len);
  return out;
}

/**
 * Encodes a masked text frame whose payload is `lines` with a line feed
 * between each two, written straight into the frame: no joined string is
 * made (for a batch of large frames, that copy cost as much as encoding).
 * Text that is not all ASCII is joined and encoded as {@linkcode encodeTextFrame} does;
 * no lines make an empty message.
 *
 * @example
 * ```ts
 * const bytes = encodeLinesFrame(["a", "b"]);
 * console.log(bytes.length); // 9: a 6-byte header and "a\nb"
 * ```
 */
export function encodeLinesFrame(lines: readonly string[]): Uint8Array {
  // Without this, the length would count a separator too many: -1, a corrupt header.
  if (lines.length === 0) return encodeTextFrame("");
  let len = lines.length - 1;
  for (const line of lines) len += line.length;
  const headerLen = headerLength(len, true);
  const out = allocate(headerLen + len);
  let at = headerLen;
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out[at++] = 0x0a;
    const line = lines[i]!;
    // Each unit one byte only if every unit is ASCII; otherwise the lines do not fit.
    if (textEncoder.encodeInto(line, out.subarray(at, at + line.length)).read !== line.length) {
      return encodeTextFrame(lines.join("\n"));
    }
    at += line.length;
  }
  writeHeader(out, Opcode.Text, len, true, true);
  maskPayload(out, headerLen, len);
  return out;
}

const textEncoder = new TextEncoder();

function headerLength(len: number, mask: boolean): number {
  return 2 + (len < 126 ? 0 : len < 65536 ? 2 : 8) + (mask ? 4 : 0);
}

function writeHeader(out: Uint8Array, opcode: number, len: number, mask: boolean, fin: boolean) {
  out[0] = (fin ? 0x80 : 0) | (opcode & 0x0f);
  const maskBit = mask ? 0x80 : 0;
  if (len < 126) {
    out[1] = maskBit | len;
  } else if (len < 65536) {
    out[1] = maskBit | 126;
    out[2] = len >>> 8;
    out[3] = len & 0xff;
  } else {
    out[1] = maskBit | 127;
    new DataView(out.buffer, out.byteOffset).setBigUint64(2, BigInt(len));
  }
}

/** Draws a fresh key into the 4 bytes before `base` and masks the `len` bytes from `base`. */
function maskPayload(out: Uint8Array, base: number, len: number): void {
  const key = out.subarray(base - 4, base);
  nextMaskKey(key);
  let i = 0;
  // Byte by byte up to a 4-byte boundary, then a 32-bit word at a time (3-4×
  // faster on large frames: masking 10 KB was the largest cost of a call).
  const start = out.byteOffset + base;
  for (; i < len && (start + i) % 4 !== 0; i++) out[base + i]! ^= key[i & 3]!;
  const words = (len - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(out.buffer, start + i, words);
    const m = [key[i & 3]!, key[(i + 1) & 3]!, key[(i + 2) & 3]!, key[(i + 3) & 3]!];
    const word = LITTLE_ENDIAN
      ? (m[0]! | (m[1]! << 8) | (m[2]! << 16) | (m[3]! << 24)) >>> 0
      : ((m[0]! << 24) | (m[1]! << 16) | (m[2]! << 8) | m[3]!) >>> 0;
    for (let w = 0; w < words; w++) view[w]! ^= word;
    i += words * 4;
  }
  for (; i < len; i++) out[base + i]! ^= key[i & 3]!;
}

/**
 * Frames up to this size are cut from a shared slab: a fresh `Uint8Array` costs
 * about as much as encoding a small frame. Parts of a slab are never reused
 * (the next frame takes the next part, a full slab is replaced), so a frame
 * still waiting in the socket's queue stays intact.
 */
const SLAB_SIZE = 64 * 1024;
const SLAB_MAX_FRAME = 8 * 1024;
let slab = new Uint8Array(SLAB_SIZE);
let slabUsed = 0;

function allocate(n: number): Uint8Array {
  if (n > SLAB_MAX_FRAME) return new Uint8Array(n);
  if (slabUsed + n > SLAB_SIZE) {
    slab = new Uint8Array(SLAB_SIZE);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + n);
  // Keep the next frame's payload 4-byte aligned where its header allows.
  slabUsed = (slabUsed + n + 7) & ~7;
  return out;
}

/**
 * Mask keys come from a block of random bytes drawn 4 KiB at a time (one
 * `randomFillSync` call serves a thousand frames; one per frame was a cost
 * of every message sent). Each key is used once, as RFC 6455 §5.3 asks.
 */
const keyPool = new Uint8Array(4096);
let keyPoolUsed = keyPool.length;

function nextMaskKey(key: Uint8Array): void {
  if (keyPoolUsed + 4 > keyPool.length) {
    randomFillSync(keyPool);
    keyPoolUsed = 0;
  }
  // Four byte copies: a subarray view per frame would cost more than the copy.
  for (let k = 0; k < 4; k++) key[k] = keyPool[keyPoolUsed++]!;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Incremental frame parser for frames sent by a server. Feed it the bytes as
 * they arrive with `push()`; it returns the frames that became complete.
 *
 * @example
 * ```ts
 * const parser = new FrameParser({ maxPayload: 1024 });
 * const frames = parser.push(new Uint8Array([0x81, 0x02, 0x68, 0x69]));
 * console.log(frames[0]?.opcode, new TextDecoder().decode(frames[0]?.payload)); // 1 "hi"
 * ```
 */
export class FrameParser {
  #chunks: Uint8Array[] = [];
  /** Index of the first unconsumed chunk (avoids O(n) `shift()`s). */
  #head = 0;
  #buffered = 0;
  #maxPayload: number;

  constructor(options: { maxPayload: number }) {
    this.#maxPayload = options.maxPayload;
  }

  /** Appends bytes and returns every frame now complete, in order. */
  push(chunk: Uint8Array): Frame[] {
    if (chunk.length > 0) {
      // Kept without a copy: Node and Deno hand every read its own buffer and
      // never write to it again (callers collecting chunks rely on that too).
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.#next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  #next(): Frame | undefined {
    if (this.#buffered < 2) return undefined;
    const head = this.#peek(Math.min(this.#buffered, 10));
    const b0 = head[0]!, b1 = head[1]!;
    if (b0 & 0x70) {
      throw new FrameError(1002, "Reserved bits set in a frame (no extension was negotiated)");
    }
    if (b1 & 0x80) throw new FrameError(1002, "Masked frame received from the server");
    const opcode = b0 & 0x0f;
    const fin = (b0 & 0x80) !== 0;
    const isControl = opcode >= 0x8;
    if (![0x0, 0x1, 0x2, 0x8, 0x9, 0xa].includes(opcode)) {
      throw new FrameError(1002, `Unknown opcode: 0x${opcode.toString(16)}`);
    }
    let len = b1 & 0x7f;
    let headerLen = 2;
    if (len === 126) {
      if (head.length < 4) return undefined;
      len = (head[2]! << 8) | head[3]!;
      headerLen = 4;
    } else if (len === 127) {
      if (head.length < 10) return undefined;
      const big = new DataView(head.buffer, head.byteOffset, 10).getBigUint64(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new FrameError(1009, "Frame length does not fit in 53 bits");
      }
      len = Number(big);
      headerLen = 10;
    }
    if (isControl && (len > 125 || !fin)) {
      throw new FrameError(1002, "Control frames must be unfragmented and at most 125 bytes");
    }
    if (len > this.#maxPayload) {
      throw new FrameError(
        1009,
        `Message too big: ${len} bytes exceeds the limit of ${this.#maxPayload}`,
      );
    }
    if (this.#buffered < headerLen + len) return undefined;
    this.#consume(headerLen);
    return { fin, opcode, payload: this.#consume(len) };
  }

  /** The first `n` buffered bytes, without consuming them. */
  #peek(n: number): Uint8Array {
    const first = this.#chunks[this.#head]!;
    if (first.length >= n) return first.subarray(0, n);
    return this.#gather(n, false);
  }

  #consume(n: number): Uint8Array {
    if (n === 0) return new Uint8Array(0);
    const first = this.#chunks[this.#head]!;
    if (first.length >= n) {
      this.#buffered -= n;
      if (first.length === n) this.#dropFirst();
      else this.#chunks[this.#head] = first.subarray(n);
      return first.subarray(0, n);
    }
    return this.#gather(n, true);
  }

  /** Copies `n` bytes spanning several chunks into one buffer. */
  #gather(n: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    let idx = this.#head;
    while (filled < n) {
      const chunk = this.#chunks[consume ? this.#head : idx]!;
      const take = Math.min(chunk.length, n - filled);
      out.set(chunk.subarray(0, take), filled);
      filled += take;
      if (!consume) idx++;
      else if (take === chunk.length) this.#dropFirst();
      else this.#chunks[this.#head] = chunk.subarray(take);
    }
    if (consume) this.#buffered -= n;
    return out;
  }

  #dropFirst(): void {
    this.#head++;
    if (this.#head === this.#chunks.length) {
      this.#chunks = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#head);
      this.#head = 0;
    }
  }
}

/**
 * Reassembles fragmented messages from data frames (text, binary and
 * continuation) and enforces the maximum message size.
 *
 * @example
 * ```ts
 * const assembler = new MessageAssembler({ maxMessageSize: 1024 });
 * const enc = new TextEncoder();
 * assembler.add({ fin: false, opcode: Opcode.Text, payload: enc.encode("hel") });
 * const msg = assembler.add({ fin: true, opcode: Opcode.Continuation, payload: enc.encode("lo") });
 * console.log(msg); // "hello"
 * ```
 */
export class MessageAssembler {
  #maxMessageSize: number;
  #opcode = 0;
  #parts: Uint8Array[] = [];
  #size = 0;
  #decoder = new TextDecoder("utf-8");
  #strictDecoder = new TextDecoder("utf-8", { fatal: true });

  constructor(options: { maxMessageSize: number }) {
    this.#maxMessageSize = options.maxMessageSize;
  }

  /**
   * Adds a data frame; returns the message (a string for text, bytes for
   * binary) when the frame completes one, otherwise `undefined`.
   */
  add(frame: Frame): string | Uint8Array | undefined {
    if (frame.opcode === Opcode.Continuation) {
      if (this.#opcode === 0) {
        throw new FrameError(1002, "Continuation frame without a message to continue");
      }
    } else {
      if (this.#opcode !== 0) {
        throw new FrameError(1002, "New data frame while a fragmented message is incomplete");
      }
      this.#opcode = frame.opcode;
    }
    this.#size += frame.payload.length;
    if (this.#size > this.#maxMessageSize) {
      throw new FrameError(
        1009,
        `Message too big: more than ${this.#maxMessageSize} bytes`,
      );
    }
    this.#parts.push(frame.payload);
    if (!frame.fin) return undefined;
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : concat(this.#parts, this.#size);
    const opcode = this.#opcode;
    this.#opcode = 0;
    this.#parts = [];
    this.#size = 0;
    if (opcode === Opcode.Binary) return bytes;
    // The lenient decoder is several times faster than the strict one on large
    // messages; it marks invalid bytes with U+FFFD, so only text containing that
    // character (rare, and never in ASCII text) is decoded again strictly.
    const text = this.#decoder.decode(bytes);
    if (!text.includes("\uFFFD")) return text;
    try {
      return this.#strictDecoder.decode(bytes);
    } catch {
      throw new FrameError(1007, "Text message is not valid UTF-8");
    }
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * A WebSocket client over a raw TCP connection, for conformance tests of the
 * engine's servers: it writes any bytes (masked or not, reserved bits,
 * fragments, lengths that lie) and records every frame the server sends
 * until the server ends the connection.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  encodeFrame,
  type Frame,
  FrameParser,
  Opcode,
} from "../../sdk/typescript/websocket/frame.ts";

export { Opcode };
export type { Frame };

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The opening handshake of a worker connection, with `extra` header lines. */
export function upgradeHead(path = "/", extra = ""): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;
}

/** One frame's bytes; `rsv` sets reserved bits (0x40, 0x20, 0x10) in its first byte. */
export function frame(
  opcode: number,
  payload: Uint8Array | string = "",
  options: { fin?: boolean; mask?: boolean; rsv?: number } = {},
): Uint8Array {
  const bytes = encodeFrame(
    opcode,
    typeof payload === "string" ? enc.encode(payload) : payload,
    options.mask ?? true,
    options.fin ?? true,
  ).slice();
  bytes[0]! |= options.rsv ?? 0;
  return bytes;
}

/** A close frame's payload: the code, then the reason's bytes. */
export function closePayload(code: number, reason: Uint8Array | string = ""): Uint8Array {
  const text = typeof reason === "string" ? enc.encode(reason) : reason;
  return Buffer.concat([new Uint8Array([code >>> 8, code & 0xff]), text]);
}

/** The code and reason of a close frame (code 1005 when it carries none). */
export function closeOf(f: Frame): { code: number; reason: string } {
  if (f.payload.length < 2) return { code: 1005, reason: "" };
  return { code: (f.payload[0]! << 8) | f.payload[1]!, reason: dec.decode(f.payload.subarray(2)) };
}

/** `promise`, or a failure naming `what` once `ms` pass (a hang would stall the suite). */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Not within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export class RawWebSocket {
  readonly conn: Deno.Conn;
  /** Every frame read so far, in order. */
  readonly frames: Frame[] = [];
  #parser = new FrameParser({ maxPayload: 1 << 24 });
  #read = 0;
  #ended = false;

  private constructor(conn: Deno.Conn) {
    this.conn = conn;
  }

  /** Connects and completes the opening handshake `head` (a 101 is required). */
  static async open(port: number, head = upgradeHead()): Promise<RawWebSocket> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const ws = new RawWebSocket(conn);
    try {
      await ws.write(enc.encode(head));
      let bytes = new Uint8Array(0);
      for (;;) {
        const end = Buffer.from(bytes).indexOf("\r\n\r\n");
        if (end >= 0) {
          const text = dec.decode(bytes.subarray(0, end));
          if (!text.startsWith("HTTP/1.1 101 ")) throw new Error(`Not upgraded: ${text}`);
          ws.frames.push(...ws.#parser.push(bytes.slice(end + 4)));
          return ws;
        }
        const buf = new Uint8Array(4096);
        const n = await conn.read(buf);
        if (n === null) {
          throw new Error(`Connection closed after ${JSON.stringify(dec.decode(bytes))}`);
        }
        bytes = Buffer.concat([bytes, buf.subarray(0, n)]);
      }
    } catch (e) {
      conn.close();
      throw e;
    }
  }

  async write(...parts: Uint8Array[]): Promise<void> {
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    for (let off = 0; off < bytes.length;) off += await this.conn.write(bytes.subarray(off));
  }

  /** The next frame not returned before, or null once the server ended the connection. */
  async next(ms = 5000): Promise<Frame | null> {
    while (this.#read === this.frames.length) {
      if (this.#ended) return null;
      const buf = new Uint8Array(65536);
      const n = await within(ms, "a frame or the end of the connection", this.conn.read(buf))
        .catch((e) => {
          if (e instanceof Error && e.message.startsWith("Not within")) throw e;
          return null;
        });
      if (n === null) this.#ended = true;
      else this.frames.push(...this.#parser.push(buf.subarray(0, n)));
    }
    return this.frames[this.#read++]!;
  }

  /** The next frame matching `match`, skipping others; null when the connection ended first. */
  async until(match: (f: Frame) => boolean): Promise<Frame | null> {
    for (;;) {
      const f = await this.next();
      if (f === null || match(f)) return f;
    }
  }

  /**
   * Reads to the end of the connection: the server's close frame (skipping
   * data frames before it), whether anything came after it, and whether the
   * server ended the TCP connection (within 5 s).
   */
  async closing(): Promise<{ close: { code: number; reason: string } | null; after: number }> {
    const f = await this.until((f) => f.opcode === Opcode.Close);
    if (f === null) return { close: null, after: 0 };
    let after = 0;
    while (await this.next() !== null) after++;
    return { close: closeOf(f), after };
  }

  close(): void {
    try {
      this.conn.close();
    } catch { /* closed already */ }
  }
}

/** An invokefunction frame calling `engine::health::check`, and a match for its result. */
export function healthCall(
  id = crypto.randomUUID(),
): { text: string; isResult: (f: Frame) => boolean } {
  const text = JSON.stringify({
    type: "invokefunction",
    invocation_id: id,
    function_id: "engine::health::check",
    data: {},
  });
  return {
    text,
    isResult: (f) => {
      if (f.opcode !== Opcode.Text) return false;
      const json = JSON.parse(dec.decode(f.payload));
      return json.type === "invocationresult" && json.invocation_id === id;
    },
  };
}

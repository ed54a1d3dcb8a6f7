/**
 * The two ways a soak worker reaches the engine: a WebSocket that closes with
 * a closing handshake, and a WebSocket spoken by hand over plain TCP, which
 * can drop its connection without one (a pulled cable, a crashed host).
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** A text-frame connection to the engine. */
export interface FrameSocket {
  send(text: string): void;
  /** Hands each text message to `receive`, those that arrived before this call first. */
  listen(receive: (text: string) => void): void;
  /** Resolves once the connection is gone. */
  readonly closed: Promise<void>;
  /** Closes with a closing handshake (code 1000). */
  close(): void;
  /** Drops the TCP connection without a closing handshake (the native socket closes). */
  drop(): void;
}

/** Messages for a listener to come: held until {@link FrameSocket.listen}. */
function inbox(): { deliver(text: string): void; listen(receive: (text: string) => void): void } {
  let held: string[] | undefined = [];
  let receiver: (text: string) => void = (text) => held?.push(text);
  return {
    deliver: (text) => receiver(text),
    listen(receive) {
      receiver = receive;
      for (const text of held ?? []) receive(text);
      held = undefined;
    },
  };
}

/** Deno's WebSocket client; resolves once open. */
export function nativeSocket(url: string): Promise<FrameSocket> {
  const ws = new WebSocket(url);
  const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve()));
  const messages = inbox();
  const socket: FrameSocket = {
    send: (text) => ws.readyState === WebSocket.OPEN && ws.send(text),
    listen: messages.listen,
    closed,
    close: () => ws.close(1000),
    drop: () => ws.close(1000),
  };
  ws.addEventListener("message", (e) => {
    messages.deliver(typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data));
  });
  return new Promise((resolve, reject) => {
    ws.addEventListener("open", () => resolve(socket), { once: true });
    ws.addEventListener("error", () => reject(new Error(`Cannot connect to ${url}`)), {
      once: true,
    });
  });
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A client WebSocket over `Deno.connect` (RFC 6455, text frames only); resolves once upgraded. */
export async function tcpSocket(url: string): Promise<FrameSocket> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  await writeAll(
    conn,
    encoder.encode(
      `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ),
  );
  let buffer: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  const read = async (): Promise<boolean> => {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return false;
    buffer = concat(buffer, chunk.subarray(0, n));
    return true;
  };
  let headEnd = -1;
  while ((headEnd = decoder.decode(buffer).indexOf("\r\n\r\n")) < 0) {
    if (!await read()) throw new Error(`The engine at ${url} closed before upgrading`);
  }
  const head = decoder.decode(buffer).slice(0, headEnd);
  if (!head.startsWith("HTTP/1.1 101")) {
    conn.close();
    throw new Error(`The engine at ${url} refused the upgrade: ${head.split("\r\n")[0]}`);
  }
  buffer = buffer.subarray(encoder.encode(head).length + 4);

  let gone = false;
  const end = () => {
    if (gone) return;
    gone = true;
    try {
      conn.close();
    } catch { /* closed already */ }
  };
  // Chained, so a partial write never interleaves with the next frame.
  let writing = Promise.resolve();
  const write = (opcode: number, payload: Uint8Array) => {
    if (gone) return;
    const bytes = frame(opcode, payload);
    writing = writing.then(() => gone ? undefined : writeAll(conn, bytes)).catch(end);
  };
  const messages = inbox();
  const socket: FrameSocket = {
    send: (text) => write(0x1, encoder.encode(text)),
    listen: messages.listen,
    closed: Promise.resolve(),
    close: () => {
      write(0x8, new Uint8Array([0x03, 0xe8]));
    },
    drop: end,
  };
  const pump = async () => {
    let message: Uint8Array[] = [];
    for (;;) {
      const next = parse(buffer);
      if (next === undefined) {
        if (gone || !await read()) break;
        continue;
      }
      buffer = buffer.subarray(next.size);
      if (next.opcode === 0x8) break;
      if (next.opcode === 0x9) write(0xa, next.payload);
      if (next.opcode === 0x1 || next.opcode === 0x0) {
        message.push(next.payload);
        if (next.fin) {
          messages.deliver(decoder.decode(message.length === 1 ? message[0] : concat(...message)));
          message = [];
        }
      }
    }
    end();
  };
  (socket as { closed: Promise<void> }).closed = pump();
  return socket;
}

/** One frame at the start of `bytes` (a server's: unmasked), or undefined if incomplete. */
function parse(
  bytes: Uint8Array,
): { fin: boolean; opcode: number; payload: Uint8Array; size: number } | undefined {
  if (bytes.length < 2) return undefined;
  let length = bytes[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (bytes.length < 4) return undefined;
    length = (bytes[2]! << 8) | bytes[3]!;
    offset = 4;
  } else if (length === 127) {
    if (bytes.length < 10) return undefined;
    length = Number(new DataView(bytes.buffer, bytes.byteOffset + 2, 8).getBigUint64(0));
    offset = 10;
  }
  if (bytes.length < offset + length) return undefined;
  return {
    fin: (bytes[0]! & 0x80) !== 0,
    opcode: bytes[0]! & 0x0f,
    payload: bytes.slice(offset, offset + length),
    size: offset + length,
  };
}

/** A client frame: final, masked. */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const header = n < 126
    ? [0x80 | opcode, 0x80 | n]
    : n < 65536
    ? [0x80 | opcode, 0x80 | 126, n >> 8, n & 0xff]
    : [
      0x80 | opcode,
      0x80 | 127,
      0,
      0,
      0,
      0,
      n >>> 24,
      (n >> 16) & 0xff,
      (n >> 8) & 0xff,
      n & 0xff,
    ];
  const mask = crypto.getRandomValues(new Uint8Array(4));
  const masked = payload.map((b, i) => b ^ mask[i & 3]!);
  return concat(new Uint8Array(header), mask, masked);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

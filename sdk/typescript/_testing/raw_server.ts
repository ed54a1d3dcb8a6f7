/**
 * A byte-level WebSocket server for tests: it performs the upgrade by hand and
 * then lets the test write raw frames, so it can send what `Deno.serve` never
 * does (fragments, server pings) and stay silent where Deno would answer
 * (pings).
 *
 * @module
 */

import { acceptFor } from "../websocket/handshake.ts";
import { encodeFrame, type Frame } from "../websocket/frame.ts";

/** A frame from the client, with whether it was masked. */
export type RawFrame = Frame & { masked: boolean };

/** One accepted connection. */
export interface RawConnection {
  /** The request head, lower-cased header names. */
  headers: Record<string, string>;
  /** Frames received from the client (unmasked). */
  frames: RawFrame[];
  /** Writes a server frame (unmasked). */
  send(opcode: number, payload: Uint8Array | string, fin?: boolean): Promise<void>;
  /** Writes raw bytes (several frames at once, say). */
  write(bytes: Uint8Array): Promise<void>;
  /** Resolves with the next frame matching `pred` (including ones already received). */
  waitFrame(pred: (f: RawFrame) => boolean, timeoutMs?: number): Promise<RawFrame>;
  /** Resolves when the client closed the TCP connection. */
  ended: Promise<void>;
  close(): void;
}

/** Server handle. */
export interface RawServer {
  port: number;
  url: string;
  /** Resolves with the n-th (0-based) accepted connection. */
  connection(n: number, timeoutMs?: number): Promise<RawConnection>;
  close(): Promise<void>;
}

const enc = new TextEncoder();

/** Starts a raw WebSocket server on an ephemeral port. */
export function startRawServer(): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: RawConnection[] = [];
  const tcp: Deno.Conn[] = [];
  const waiters: (() => void)[] = [];
  const loops: Promise<void>[] = [];
  const acceptLoop = (async () => {
    for await (const conn of listener) {
      tcp.push(conn);
      loops.push(serve(conn, (c) => {
        conns.push(c);
        waiters.splice(0).forEach((w) => w());
      }));
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    url: `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    connection: (n, timeoutMs = 3000) =>
      waitUntil(() => conns[n], (wake) => waiters.push(wake), timeoutMs, `connection #${n}`),
    async close() {
      listener.close();
      for (const c of tcp) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      await acceptLoop.catch(() => {});
      await Promise.allSettled(loops);
    },
  };
}

async function serve(conn: Deno.Conn, onReady: (c: RawConnection) => void): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  let head = "";
  let rest = new Uint8Array(0);
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) return;
    head += new TextDecoder().decode(buf.subarray(0, n));
  }
  const [requestHead = "", after = ""] = head.split("\r\n\r\n");
  rest = enc.encode(after);
  const headers: Record<string, string> = {};
  for (const line of requestHead.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const key = headers["sec-websocket-key"] ?? "";
  await conn.write(enc.encode(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`,
  ));
  const frames: RawFrame[] = [];
  const waiters: (() => void)[] = [];
  let endedResolve!: () => void;
  const ended = new Promise<void>((r) => (endedResolve = r));
  const c: RawConnection = {
    headers,
    frames,
    ended,
    async send(opcode, payload, fin = true) {
      const bytes = typeof payload === "string" ? enc.encode(payload) : payload;
      await conn.write(encodeFrame(opcode, bytes, false, fin));
    },
    async write(bytes) {
      for (let done = 0; done < bytes.length;) done += await conn.write(bytes.subarray(done));
    },
    waitFrame(pred, timeoutMs = 3000) {
      return waitUntil(() => frames.find(pred), (wake) => waiters.push(wake), timeoutMs, "frame");
    },
    close() {
      try {
        conn.close();
      } catch { /* already closed */ }
    },
  };
  onReady(c);
  const reader = new ClientFrameReader();
  let pending = rest;
  for (;;) {
    if (pending.length > 0) {
      frames.push(...reader.push(pending));
      waiters.splice(0).forEach((w) => w());
    }
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    pending = buf.slice(0, n);
  }
  endedResolve();
}

/** Reads the client's masked frames (FrameParser is client-side and rejects masks). */
class ClientFrameReader {
  #data = new Uint8Array(0);

  push(chunk: Uint8Array): RawFrame[] {
    let data = concat(this.#data, chunk);
    const out: RawFrame[] = [];
    for (;;) {
      if (data.length < 2) break;
      let len = data[1]! & 0x7f;
      let off = 2;
      if (len === 126) {
        if (data.length < 4) break;
        len = (data[2]! << 8) | data[3]!;
        off = 4;
      } else if (len === 127) {
        if (data.length < 10) break;
        len = Number(new DataView(data.buffer, data.byteOffset).getBigUint64(2));
        off = 10;
      }
      const masked = (data[1]! & 0x80) !== 0;
      const total = off + (masked ? 4 : 0) + len;
      if (data.length < total) break;
      const key = masked ? data.subarray(off, off + 4) : new Uint8Array(4);
      const payload = data.slice(off + (masked ? 4 : 0), total);
      for (let i = 0; i < payload.length; i++) payload[i]! ^= key[i & 3]!;
      out.push({ fin: (data[0]! & 0x80) !== 0, opcode: data[0]! & 0x0f, payload, masked });
      data = data.subarray(total);
    }
    this.#data = data.slice();
    return out;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Polls `get` each time `subscribe` wakes it, until it returns a value. */
export function waitUntil<T>(
  get: () => T | undefined,
  subscribe: (wake: () => void) => void,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Timed out after ${timeoutMs}ms waiting for ${what}`)),
      timeoutMs,
    );
    const check = () => {
      const v = get();
      if (v !== undefined) {
        clearTimeout(timer);
        resolve(v);
      } else subscribe(check);
    };
    check();
  });
}

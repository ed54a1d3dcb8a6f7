import { Buffer } from "node:buffer";
import assert from "node:assert/strict";
import { encodeFrame, type Frame, FrameParser } from "../../sdk/typescript/websocket/frame.ts";
import { Opcode } from "./frame_reader.ts";
import { type CloseInfo, NativeSocket, type NativeSocketOptions } from "./native_socket.ts";
import { PONG_BUDGET } from "./outbox.ts";
import { SocketState } from "./socket.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The client end: writes masked frames, reads the server's frames one by one. */
class Client {
  conn: Deno.Conn;
  #parser = new FrameParser({ maxPayload: 1 << 20 });
  #frames: Frame[] = [];
  constructor(conn: Deno.Conn) {
    this.conn = conn;
  }
  async send(opcode: number, payload: Uint8Array | string, mask = true): Promise<void> {
    const bytes = encodeFrame(
      opcode,
      typeof payload === "string" ? enc.encode(payload) : payload,
      mask,
    );
    for (let off = 0; off < bytes.length;) off += await this.conn.write(bytes.subarray(off));
  }
  /** The next frame from the server, or null once it closed the connection. */
  async next(): Promise<Frame | null> {
    while (this.#frames.length === 0) {
      const buf = new Uint8Array(65536);
      const n = await this.conn.read(buf).catch(() => null);
      if (n === null) return null;
      this.#frames.push(...this.#parser.push(buf.slice(0, n)));
    }
    return this.#frames.shift()!;
  }
}

function closeOf(f: Frame | null): [number, string] | undefined {
  if (f === null || f.opcode !== Opcode.Close) return undefined;
  return [(f.payload[0]! << 8) | f.payload[1]!, dec.decode(f.payload.subarray(2))];
}

/** A NativeSocket on one end of a TCP pair and a Client on the other; both closed after `fn`. */
async function withSocket(
  options: Partial<NativeSocketOptions>,
  fn: (socket: NativeSocket, client: Client, ended: Promise<CloseInfo>) => Promise<void>,
): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept();
  const client = new Client(
    await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port }),
  );
  const server = await accepted;
  listener.close();
  const socket = new NativeSocket(server, {
    maxMessageBytes: 1024,
    idleTimeoutMs: 60_000,
    closeTimeoutMs: 5000,
    ...options,
  });
  const ended = socket.run();
  ended.catch(() => {});
  try {
    await fn(socket, client, ended);
  } finally {
    socket.abort();
    await ended.catch(() => {});
    try {
      client.conn.close();
    } catch { /* closed by the test */ }
  }
}

Deno.test("NativeSocket hands on messages, sends text and answers a ping with its payload", () =>
  withSocket({}, async (socket, client) => {
    socket.onText = (t) => socket.send(`echo ${t}`);
    socket.onBinary = (b) => socket.send(`binary ${b.length}`);
    await client.send(Opcode.Text, "hi");
    assert.equal(dec.decode((await client.next())!.payload), "echo hi");
    await client.send(Opcode.Binary, new Uint8Array(3));
    assert.equal(dec.decode((await client.next())!.payload), "binary 3");
    await client.send(Opcode.Ping, "are you there");
    const pong = (await client.next())!;
    assert.equal(pong.opcode, Opcode.Pong);
    assert.equal(dec.decode(pong.payload), "are you there");
    assert.equal(socket.readyState, SocketState.Open);
  }));

Deno.test("NativeSocket echoes a client's close code, then ends the connection", () =>
  withSocket({}, async (socket, client, ended) => {
    const payload = new Uint8Array([0x0f, 0xa1, ...enc.encode("bye")]);
    await client.send(Opcode.Close, payload);
    assert.deepEqual(closeOf(await client.next()), [4001, ""]);
    assert.equal(await client.next(), null);
    assert.deepEqual(await ended, { code: 4001, reason: "bye" });
    assert.equal(socket.readyState, SocketState.Closed);
  }));

Deno.test("NativeSocket.close() waits for the client's answer, or cuts the connection after closeTimeoutMs", async (t) => {
  await t.step("answered", () =>
    withSocket({}, async (socket, client, ended) => {
      socket.close(1001, "engine shutting down");
      assert.equal(socket.readyState, SocketState.Closing);
      socket.send("not sent once closing");
      assert.deepEqual(closeOf(await client.next()), [1001, "engine shutting down"]);
      await client.send(Opcode.Close, new Uint8Array([0x03, 0xe9]));
      assert.equal(await client.next(), null);
      assert.equal((await ended).code, 1001);
    }));
  await t.step(
    "not answered",
    () =>
      withSocket({ closeTimeoutMs: 100 }, async (socket, client, ended) => {
        socket.close(1000, "");
        assert.deepEqual(closeOf(await client.next()), [1000, ""]);
        assert.equal(await client.next(), null, "cut without an answer");
        assert.equal((await ended).code, 1006);
      }),
  );
});

Deno.test("NativeSocket.close() cuts a long reason to 123 bytes at a character boundary", async () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const cases: [string, string][] = [
    ["é".repeat(100), "é".repeat(61)],
    ["a" + "😀".repeat(40), "a" + "😀".repeat(30)],
    ["x".repeat(200), "x".repeat(123)],
  ];
  for (const [reason, sent] of cases) {
    await withSocket({}, async (socket, client) => {
      socket.close(4000, reason);
      const f = (await client.next())!;
      assert.equal(f.opcode, Opcode.Close);
      assert.equal(strict.decode(f.payload.subarray(2)), sent);
    });
  }
});

Deno.test("NativeSocket fails a protocol violation with its close code, then ends the connection", async () => {
  const cases: [string, (c: Client) => Promise<void>, number][] = [
    ["unmasked frame", (c) => c.send(Opcode.Text, "x", false), 1002],
    ["unknown opcode", (c) => c.send(0x5, "x"), 1002],
    ["invalid UTF-8", (c) => c.send(Opcode.Text, new Uint8Array([0xc3, 0x28])), 1007],
  ];
  for (const [name, send, code] of cases) {
    await withSocket({}, async (socket, client, ended) => {
      socket.onText = () => assert.fail("nothing is handed on");
      socket.onBinary = () => assert.fail("nothing is handed on");
      await send(client);
      assert.equal(closeOf(await client.next())?.[0], code, name);
      assert.equal(await client.next(), null, name);
      assert.equal((await ended).code, 1006, name);
    });
  }
});

Deno.test("NativeSocket refuses a message over the limit with 1009 naming its size, and the client still sending it reads that close frame", () =>
  withSocket({}, async (socket, client, ended) => {
    socket.onBinary = () => assert.fail("nothing is handed on");
    // Far more than the TCP buffers hold: the client is still writing when the engine refuses
    // it. A connection closed with those bytes unread is reset, and the client saw a broken pipe
    // (1006), never the close frame.
    const size = 32 * 1024 * 1024;
    const sending = client.send(Opcode.Binary, new Uint8Array(size));
    const close = closeOf(await client.next());
    await sending; // not reset: the engine read the rest of the message and dropped it
    assert.deepEqual(close, [1009, `Message of ${size} bytes exceeds the limit of 1024 bytes`]);
    await client.send(Opcode.Ping, "answered no more");
    await client.send(Opcode.Close, new Uint8Array([0x03, 0xf1]));
    assert.equal(await client.next(), null, "the engine ends the connection at the answer");
    assert.deepEqual(await ended, { code: 1009, reason: "" });
  }));

Deno.test("NativeSocket closes with 1011 when a receiver throws, and run() rejects with the error", () =>
  withSocket({}, async (socket, client, ended) => {
    socket.onText = () => {
      throw new Error("receiver broke");
    };
    await client.send(Opcode.Text, "x");
    assert.deepEqual(closeOf(await client.next()), [1011, "Internal error"]);
    await assert.rejects(ended, /receiver broke/);
  }));

Deno.test("NativeSocket pings an idle client and closes with 1001 when no pong comes", async (t) => {
  await t.step(
    "a client that answers stays",
    () =>
      withSocket({ idleTimeoutMs: 100 }, async (socket, client) => {
        for (let i = 0; i < 2; i++) {
          const ping = (await client.next())!;
          assert.equal(ping.opcode, Opcode.Ping);
          await client.send(Opcode.Pong, ping.payload);
        }
        assert.equal(socket.readyState, SocketState.Open);
      }),
  );
  await t.step(
    "a silent client is closed",
    () =>
      withSocket({ idleTimeoutMs: 100 }, async (_socket, client, ended) => {
        assert.equal((await client.next())!.opcode, Opcode.Ping);
        assert.deepEqual(closeOf(await client.next()), [1001, "No response from ping frame."]);
        assert.equal(await client.next(), null);
        assert.equal((await ended).code, 1006);
      }),
  );
});

Deno.test("NativeSocket hands on a burst a few frames at a time, letting out the writes they caused in between", () =>
  withSocket({}, async (socket, client) => {
    const seen: string[] = [];
    socket.onText = (t) => {
      seen.push(t);
      // Runs at the first pause: after the frames of one parse, before the next ones.
      if (t === "0") queueMicrotask(() => seen.push("pause"));
      socket.send(`echo ${t}`);
    };
    const burst = Array.from(
      { length: 30 },
      (_, i) => encodeFrame(Opcode.Text, enc.encode(`${i}`), true),
    );
    const bytes = Buffer.concat(burst);
    await client.conn.write(bytes);
    const replies: string[] = [];
    while (replies.length < 30) replies.push(dec.decode((await client.next())!.payload));
    assert.deepEqual(replies, burst.map((_, i) => `echo ${i}`));
    const pause = seen.indexOf("pause");
    assert.ok(pause > 0 && pause < 30, `the burst was handed on in one go: ${seen.join(" ")}`);
    assert.equal(seen.length, 31);
  }));

/** `promise`, or a failure naming `what` once `ms` pass (a hang would stall the whole suite). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Not within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** More than the kernel buffers of a loopback connection hold for a peer that does not read. */
const STALL_BYTES = 16 * 1024 * 1024;

Deno.test("NativeSocket ends the connection of an idle client that reads nothing either", () =>
  withSocket({ idleTimeoutMs: 100, closeTimeoutMs: 100 }, async (socket, _client, ended) => {
    // The client never reads: this stays queued, and the ping and close frames behind it.
    socket.send("x".repeat(STALL_BYTES));
    assert.equal((await within(10_000, "the connection ends", ended)).code, 1006);
    assert.equal(socket.readyState, SocketState.Closed);
  }));

Deno.test("NativeSocket queues few pongs for a client that pings and does not read", () =>
  withSocket({}, async (socket, client) => {
    const marker = new Promise<void>((resolve) => socket.onText = () => resolve());
    const ping = encodeFrame(Opcode.Ping, new Uint8Array(125), true);
    const flood = new Uint8Array(ping.length * 100_000);
    for (let at = 0; at < flood.length; at += ping.length) flood.set(ping, at);
    const write = (async () => {
      for (let off = 0; off < flood.length;) off += await client.conn.write(flood.subarray(off));
      await client.send(Opcode.Text, "done");
    })();
    await marker;
    await write;
    // 100,000 pongs are 12.7 MB: far more than the kernel takes for a client that does not read.
    // What stays queued is at most two buffers of pongs (the one being written, the next), each
    // the budget, the pong past it and the one for the latest ping.
    assert.ok(
      socket.bufferedAmount <= 2 * (PONG_BUDGET + 2 * 127),
      `${socket.bufferedAmount} bytes queued`,
    );
  }));

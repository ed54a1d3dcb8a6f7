import assert from "node:assert/strict";
import { type MessageData, WebSocketClient } from "./client.ts";
import { HandshakeError } from "./handshake.ts";
import { encodeFrame, FrameError, Opcode } from "./frame.ts";
import { startRawServer } from "../_testing/raw_server.ts";

const enc = new TextEncoder();

interface EchoServer {
  url: string;
  /** Request headers of each upgrade, in order. */
  requests: Record<string, string>[];
  /** Close events the server saw. */
  closes: { code: number; reason: string }[];
  shutdown(): Promise<void>;
}

/** An echo server; the message "close:<code>:<reason>" makes it close instead. */
function startEchoServer(refuse?: (req: Request) => Response | undefined): EchoServer {
  const requests: Record<string, string>[] = [];
  const closes: { code: number; reason: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    requests.push(Object.fromEntries(req.headers));
    const refusal = refuse?.(req);
    if (refusal) return refusal;
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      const m = typeof e.data === "string" ? /^close:(\d+):(.*)$/.exec(e.data) : null;
      if (m) socket.close(Number(m[1]), m[2]);
      else socket.send(e.data);
    };
    socket.onclose = (e) => closes.push({ code: e.code, reason: e.reason });
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}`,
    requests,
    closes,
    shutdown: () => server.shutdown(),
  };
}

/** Sends `data` and resolves with the next message. */
function roundTrip(ws: WebSocketClient, data: string | Uint8Array): Promise<MessageData> {
  const reply = new Promise<MessageData>((resolve) => (ws.onmessage = resolve));
  ws.send(data);
  return reply;
}

const SIZES = [0, 125, 126, 65535, 65536, 1024 * 1024];

Deno.test("WebSocketClient echoes text and binary messages of every length form", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(server.url);
  try {
    for (const size of SIZES) {
      const text = "é".repeat(Math.floor(size / 2)) + "x".repeat(size % 2); // multi-byte UTF-8
      assert.equal(await roundTrip(ws, text), text, `text of ${size} bytes`);
      const ascii = "a".repeat(size);
      assert.equal(await roundTrip(ws, ascii), ascii, `ASCII text of ${size} bytes`);
      const bytes = new Uint8Array(size).map((_, i) => (i * 31) % 256);
      const echoed = await roundTrip(ws, bytes);
      assert.ok(echoed instanceof Uint8Array, `binary of ${size} bytes comes back as bytes`);
      assert.deepEqual(echoed, bytes, `binary of ${size} bytes`);
    }
  } finally {
    await ws.close();
    await server.shutdown();
  }
});

Deno.test("WebSocketClient sends custom headers on the upgrade", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(`${server.url}/some/path?q=1`, {
    headers: { "X-Custom": "abc", Authorization: "Bearer t0k" },
  });
  await ws.close();
  await server.shutdown();
  const headers = server.requests[0]!;
  assert.equal(headers["x-custom"], "abc");
  assert.equal(headers["authorization"], "Bearer t0k");
  assert.equal(headers["sec-websocket-extensions"], undefined, "no permessage-deflate offered");
  assert.throws(
    () => new WebSocketClient(server.url, { headers: { "x-bad": "a\r\nb" } }),
    TypeError,
  );
  assert.throws(() => new WebSocketClient("http://127.0.0.1:1"), /ws: or wss:/);
});

Deno.test("WebSocketClient offers subprotocols, reports the choice and refuses one not offered", async () => {
  // The server answers with the protocol named in the path ("-" for none), offered or not.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const chosen = new URL(req.url).pathname.slice(1);
    const offered = req.headers.get("sec-websocket-protocol") ?? "";
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onopen = () => socket.send(offered);
    if (chosen !== "-") response.headers.set("sec-websocket-protocol", chosen);
    return response;
  });
  const url = `ws://127.0.0.1:${server.addr.port}`;
  try {
    const ws = new WebSocketClient(`${url}/b`, { protocols: ["a", "b"] });
    const offered = new Promise<MessageData>((resolve) => (ws.onmessage = resolve));
    await new Promise<void>((resolve) => (ws.onopen = resolve));
    assert.equal(ws.protocol, "b");
    assert.equal(await offered, "a, b");
    await ws.close();

    const plain = await WebSocketClient.connect(`${url}/-`, { protocols: ["a"] });
    assert.equal(plain.protocol, "", "a server may choose none");
    await plain.close();

    await assert.rejects(
      WebSocketClient.connect(`${url}/c`, { protocols: ["a"] }),
      /server chose a subprotocol that was not offered: "c"/,
    );
    await assert.rejects(
      WebSocketClient.connect(`${url}/c`),
      /server chose a subprotocol that was not offered: "c"/,
    );
    assert.throws(() => new WebSocketClient(url, { protocols: ["a b"] }), /Invalid subprotocol/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("WebSocketClient reports a refused upgrade with its HTTP status", async () => {
  const server = startEchoServer(() =>
    new Response("bad token", { status: 401, statusText: "Unauthorized" })
  );
  try {
    await assert.rejects(WebSocketClient.connect(server.url), (err) => {
      assert.ok(err instanceof HandshakeError);
      assert.equal(err.status, 401);
      assert.match(err.message, /HTTP 401 Unauthorized: bad token/);
      return true;
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("WebSocketClient reports a refused TCP connection", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const ws = new WebSocketClient(`ws://127.0.0.1:${port}`);
  let error: Error | undefined;
  ws.onerror = (err) => (error = err);
  const event = await ws.closed;
  assert.equal(event.code, 1006);
  assert.match(error?.message ?? "", /failed: .*ECONNREFUSED/);
});

Deno.test("WebSocketClient surfaces the server's close code and reason", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(server.url);
  const closed = new Promise((resolve) => (ws.onclose = resolve));
  ws.send("close:4001:going away now");
  assert.deepEqual(await closed, { code: 4001, reason: "going away now", wasClean: true });
  await server.shutdown();
  assert.equal(server.closes[0]?.code, 4001, "the client echoes the close code");
});

Deno.test("WebSocketClient.close() runs the closing handshake with code and reason", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(server.url);
  const event = await ws.close(4000, "bye");
  assert.deepEqual(event, { code: 4000, reason: "bye", wasClean: true });
  assert.equal(ws.readyState, "closed");
  assert.throws(() => ws.send("late"), /not open/);
  await server.shutdown();
  assert.deepEqual(server.closes, [{ code: 4000, reason: "bye" }]);
});

Deno.test("WebSocketClient answers pings, reassembles fragments and masks its frames", async () => {
  const server = startRawServer();
  const ws = await WebSocketClient.connect(server.url);
  const conn = await server.connection(0);
  try {
    const pings: string[] = [];
    ws.onping = (data) => pings.push(new TextDecoder().decode(data));
    await conn.send(Opcode.Ping, "are you there");
    const pong = await conn.waitFrame((f) => f.opcode === Opcode.Pong);
    assert.equal(new TextDecoder().decode(pong.payload), "are you there");
    assert.deepEqual(pings, ["are you there"]);

    const message = new Promise((resolve) => (ws.onmessage = resolve));
    await conn.send(Opcode.Text, "hel", false);
    await conn.send(Opcode.Ping, ""); // control frames may come between fragments
    await conn.send(Opcode.Continuation, "lo ", false);
    await conn.send(Opcode.Continuation, "wörld", true);
    assert.equal(await message, "hello wörld");

    ws.send("from client");
    const frame = await conn.waitFrame((f) => f.opcode === Opcode.Text);
    assert.equal(frame.masked, true);
    assert.equal(new TextDecoder().decode(frame.payload), "from client");

    ws.ping(new Uint8Array(3));
    const ping = await conn.waitFrame((f) => f.opcode === Opcode.Ping && f.payload.length === 3);
    assert.equal(ping.masked, true);
  } finally {
    ws.terminate();
    await ws.closed;
    await server.close();
  }
});

Deno.test("WebSocketClient keeps a burst of frames split across reads intact", async () => {
  // The client keeps read chunks without copying them until a frame is complete: this holds
  // only while the runtime gives every read its own buffer.
  const server = startRawServer();
  const ws = await WebSocketClient.connect(server.url);
  const conn = await server.connection(0);
  try {
    const expected = Array.from(
      { length: 400 },
      (_, i) => `${i}:` + String.fromCharCode(97 + (i % 26)).repeat((i * 7919) % 20_000),
    );
    const received: MessageData[] = [];
    const all = new Promise<void>((resolve) => {
      ws.onmessage = (m) => {
        received.push(m);
        if (received.length === expected.length + 1) resolve();
      };
    });
    const burst = expected.map((text) => encodeFrame(Opcode.Text, enc.encode(text), false));
    const bytes = new Uint8Array(burst.reduce((n, f) => n + f.length, 0));
    burst.reduce((offset, f) => (bytes.set(f, offset), offset + f.length), 0);
    await conn.send(Opcode.Text, "start"); // the first message: nothing is buffered yet
    await conn.write(bytes);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      all,
      new Promise((_, reject) =>
        timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${expected.length + 1} messages`)),
          10_000,
        )
      ),
    ]).finally(() => clearTimeout(timer));
    assert.equal(received[0], "start");
    for (let i = 1; i < expected.length; i++) {
      assert.ok(received[i] === expected[i - 1], `message ${i - 1} intact`);
    }
  } finally {
    ws.terminate();
    await ws.closed;
    await server.close();
  }
});

Deno.test("WebSocketClient fails the connection with 1009 on a message over maxMessageSize", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(server.url, { maxMessageSize: 1000 });
  let error: Error | undefined;
  ws.onerror = (err) => (error = err);
  ws.onmessage = () => assert.fail("no message expected");
  ws.send("x".repeat(2000));
  const event = await ws.closed;
  assert.equal(event.code, 1009);
  assert.ok(error instanceof FrameError);
  await server.shutdown();
});

Deno.test("WebSocketClient keeps messages that arrive before onmessage is set", async () => {
  const server = startRawServer();
  const ws = new WebSocketClient(server.url);
  const conn = await server.connection(0);
  await conn.send(Opcode.Text, "early 1");
  await conn.send(Opcode.Text, "early 2");
  // The client answers a ping only after the frames before it were handled: the texts are in.
  await conn.send(Opcode.Ping, "after");
  await conn.waitFrame((f) => f.opcode === Opcode.Pong);
  const got: MessageData[] = [];
  const both = new Promise<void>((resolve) => {
    ws.onmessage = (m) => {
      got.push(m);
      if (got.length === 2) resolve();
    };
  });
  await both;
  assert.deepEqual(got, ["early 1", "early 2"]);
  ws.terminate();
  await ws.closed;
  await server.close();
});

Deno.test("WebSocketClient round trips of 1 KB to 64 KB do not stall (Nagle / delayed ACK)", async () => {
  const server = startEchoServer();
  const ws = await WebSocketClient.connect(server.url);
  try {
    for (const size of [1025, 4096, 32768, 65535]) {
      const payload = "x".repeat(size);
      await roundTrip(ws, payload); // warm-up
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await roundTrip(ws, payload);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const median = times[10]!;
      assert.ok(
        median < 20,
        `median round trip of ${size} bytes was ${median.toFixed(1)}ms (a stall is ~40ms)`,
      );
    }
  } finally {
    await ws.close();
    await server.shutdown();
  }
});

Deno.test("WebSocketClient speaks wss: through node:tls", async () => {
  // A self-signed certificate for localhost / 127.0.0.1, made for these tests only.
  const cert = await Deno.readTextFile(new URL("../_testing/tls_cert.pem", import.meta.url));
  const key = await Deno.readTextFile(new URL("../_testing/tls_key.pem", import.meta.url));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, cert, key, onListen() {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  });
  try {
    const url = `wss://localhost:${server.addr.port}`;
    const ws = await WebSocketClient.connect(url, { tls: { ca: cert } });
    const big = "z".repeat(100_000);
    assert.equal(await roundTrip(ws, big), big);
    assert.deepEqual(await ws.close(), { code: 1000, reason: "", wasClean: true });
    await assert.rejects(WebSocketClient.connect(url), /failed: .*certificate/i);
  } finally {
    await server.shutdown();
  }
});

import assert from "node:assert/strict";
import { parseRequestHead, readRequestHead } from "./http_head.ts";

const enc = new TextEncoder();

Deno.test("parseRequestHead() reads the request line and header fields", () => {
  const bytes = enc.encode(
    "GET /otel?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade:websocket \r\n" +
      "X-A: 1\r\nx-a: 2\r\nEmpty:\r\n\r\nrest",
  );
  const parsed = parseRequestHead(bytes);
  assert.equal(parsed.kind, "head");
  if (parsed.kind !== "head") return;
  assert.equal(parsed.head.method, "GET");
  assert.equal(parsed.head.target, "/otel?x=1");
  assert.equal(parsed.head.version, "1.1");
  assert.deepEqual([...parsed.head.headers], [
    ["host", "127.0.0.1"],
    ["upgrade", "websocket"],
    ["x-a", "1, 2"],
    ["empty", ""],
  ]);
  assert.equal(new TextDecoder().decode(bytes.subarray(parsed.length)), "rest");
});

Deno.test("parseRequestHead() refuses malformed heads with 400 and large ones with 431", () => {
  const cases: [string, string, number | "incomplete"][] = [
    ["no blank line yet", "GET / HTTP/1.1\r\nHost: a\r\n", "incomplete"],
    ["empty request line", "\r\n\r\n", 400],
    ["no version", "GET /\r\n\r\n", 400],
    ["HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", 400],
    ["two spaces", "GET  / HTTP/1.1\r\n\r\n", 400],
    ["bad method", "G(T / HTTP/1.1\r\n\r\n", 400],
    ["no colon", "GET / HTTP/1.1\r\nHost a\r\n\r\n", 400],
    ["space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400],
    ["folded line", "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400],
    ["bare LF in a value", "GET / HTTP/1.1\r\nA: b\nc\r\n\r\n", 400],
    ["NUL in a value", "GET / HTTP/1.1\r\nA: b\0c\r\n\r\n", 400],
    ["too large", `GET / HTTP/1.1\r\nA: ${"x".repeat(100)}`, 431],
  ];
  for (const [name, head, expected] of cases) {
    const parsed = parseRequestHead(enc.encode(head), 0, 64);
    if (expected === "incomplete") assert.equal(parsed.kind, "incomplete", name);
    else assert.equal(parsed.kind === "invalid" && parsed.status, expected, name);
  }
});

/** A connected pair of TCP connections, closed after `fn`. */
async function withPair(fn: (client: Deno.Conn, server: Deno.Conn) => Promise<void>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept();
  const client = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  const server = await accepted;
  listener.close();
  try {
    await fn(client, server);
  } finally {
    for (const c of [client, server]) {
      try {
        c.close();
      } catch { /* closed by the test */ }
    }
  }
}

Deno.test("readRequestHead() reads a head sent a byte at a time and keeps what follows it", () =>
  withPair(async (client, server) => {
    const reading = readRequestHead(server, { maxBytes: 1024, timeoutMs: 5000 });
    const head = enc.encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    for (let i = 0; i < head.length - 1; i++) await client.write(head.subarray(i, i + 1));
    // The head's last byte comes with the start of a frame.
    await client.write(new Uint8Array([10, 0x81, 0x80]));
    const read = await reading;
    assert.equal(read.kind, "head");
    if (read.kind !== "head") return;
    assert.deepEqual(read.rest, new Uint8Array([0x81, 0x80]));
    assert.equal(read.head.headers.get("host"), "a");
  }));

Deno.test("readRequestHead() answers 431 for a head over the limit", () =>
  withPair(async (client, server) => {
    const reading = readRequestHead(server, { maxBytes: 1024, timeoutMs: 5000 });
    await client.write(enc.encode(`GET / HTTP/1.1\r\nX: ${"x".repeat(2000)}\r\n\r\n`));
    const read = await reading;
    assert.equal(read.kind === "invalid" && read.status, 431);
  }));

Deno.test("readRequestHead() closes a connection whose head does not arrive in time", () =>
  withPair(async (client, server) => {
    const reading = readRequestHead(server, { maxBytes: 1024, timeoutMs: 100 });
    await client.write(enc.encode("GET / HTTP/1.1\r\nHost: a\r\n"));
    assert.deepEqual(await reading, { kind: "timeout" });
    // The server side is closed: the client reads the end of the stream.
    assert.equal(await client.read(new Uint8Array(16)), null);
  }));

Deno.test("readRequestHead() reports a client that leaves before its head ends", () =>
  withPair(async (client, server) => {
    const reading = readRequestHead(server, { maxBytes: 1024, timeoutMs: 5000 });
    await client.write(enc.encode("GET / HT"));
    client.close();
    assert.deepEqual(await reading, { kind: "ended" });
  }));

Deno.test("readRequestHead() reserves little memory for a client that has sent little", async () => {
  // A fake connection, to see the buffers it is read into: a thousand silent clients should not
  // hold 16 KiB each.
  const sizes: number[] = [];
  const chunks = [enc.encode(`GET / HTTP/1.1\r\nX: ${"x".repeat(9000)}`), enc.encode("\r\n\r\n")];
  const conn = {
    read(p: Uint8Array): Promise<number | null> {
      sizes.push(p.length);
      const chunk = chunks[0];
      if (chunk === undefined) return Promise.resolve(null);
      const n = Math.min(p.length, chunk.length);
      p.set(chunk.subarray(0, n));
      chunks[0] = chunk.subarray(n);
      if (chunks[0].length === 0) chunks.shift();
      return Promise.resolve(n);
    },
    close() {},
  };
  const read = await readRequestHead(conn, { maxBytes: 16 * 1024, timeoutMs: 5000 });
  assert.equal(read.kind, "head");
  assert.ok(sizes[0]! <= 2048, `first read into ${sizes[0]} bytes`);
});

/**
 * Key checks run against both WebSocket servers of the engine (`deno` and
 * `native`, see `engine/server.ts`), whatever ENGINE_TRANSPORT says, so that
 * CI covers both: connecting and calling, `/health`, the refusals (401, 403,
 * 404, 426), a frame over `max_frame_bytes`, and a worker on the npm
 * `iii-sdk` (whose `ws` client is a different implementation from ours).
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Sends a raw HTTP request head and reads the response (its head, then content-length bytes). */
async function request(port: number, head: string) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    let bytes = new Uint8Array(0);
    const buf = new Uint8Array(4096);
    for (;;) {
      const text = dec.decode(bytes);
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && bytes.length >= end + 4 + Number(length)) {
        return {
          status: Number(text.slice(9, 12)),
          body: JSON.parse(text.slice(end + 4, end + 4 + Number(length))),
        };
      }
      const n = await conn.read(buf);
      if (n === null) throw new Error(`Connection closed after ${JSON.stringify(text)}`);
      bytes = new Uint8Array([...bytes, ...buf.subarray(0, n)]);
    }
  } finally {
    conn.close();
  }
}

/** All the bytes the server sends for `head` until it closes (the request asks it to). */
async function wholeResponse(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    let text = "";
    const buf = new Uint8Array(4096);
    for (let n; (n = await conn.read(buf)) !== null;) text += dec.decode(buf.subarray(0, n));
    return text;
  } finally {
    conn.close();
  }
}

/** The status of the response to `head` (its first line is enough: a 101 has no body). */
async function statusOf(port: number, head: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    let text = "";
    const buf = new Uint8Array(4096);
    while (!text.includes("\r\n")) {
      const n = await conn.read(buf);
      if (n === null) throw new Error(`Connection closed after ${JSON.stringify(text)}`);
      text += dec.decode(buf.subarray(0, n));
    }
    return Number(text.slice(9, 12));
  } finally {
    conn.close();
  }
}

const upgrade = (path: string, extra = "") =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] workers connect and call each other; /health and the refusals answer as documented`, async () => {
    const engine = await startEngine({
      port: 0,
      shutdownGraceMs: 0,
      transport,
      maxFrameBytes: 4096,
      token: "s3cret",
    });
    const auth = { authorization: "Bearer s3cret" };
    try {
      const caller = await RawWorker.connect(engine.url, auth);
      const worker = await RawWorker.connect(engine.url, auth);
      worker.serve("t::echo", (d) => d);
      await waitForFunctions(caller, ["t::echo"]);
      const text = "é✓ 😀".repeat(200); // 2,000 bytes, under the limit
      assert.equal((await caller.call("t::echo", { text })).result.text, text);

      // Over max_frame_bytes: the call fails alone, the connection stays.
      const tooBig = await caller.call("t::echo", "x".repeat(5000));
      assert.equal(tooBig.error.code, "frame_too_large");
      assert.equal((await caller.call("t::echo", 1)).result, 1);

      const health = await request(engine.port, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
      // The engine::* functions (engine::channels::create and the four ::info among them) and t::echo.
      assert.deepEqual(health, { status: 200, body: { status: "ok", workers: 3, functions: 20 } });
      // HEAD: the headers of the GET, its length included, and no body after them.
      const head = await wholeResponse(
        engine.port,
        "HEAD /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
      );
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, /\r\ncontent-length: [1-9]\d*\r\n/i);
      assert.ok(head.endsWith("\r\n\r\n"), `a body follows the head: ${JSON.stringify(head)}`);
      const refusals: [string, number, string][] = [
        ["GET / HTTP/1.1\r\nHost: a\r\n\r\n", 426, "UPGRADE_REQUIRED"],
        ["GET /otel HTTP/1.1\r\nHost: a\r\n\r\n", 426, "UPGRADE_REQUIRED"],
        ["GET /nope HTTP/1.1\r\nHost: a\r\n\r\n", 404, "NOT_FOUND"],
        [upgrade("/nope", "authorization: Bearer s3cret\r\n"), 404, "NOT_FOUND"],
        [upgrade("/", "Origin: https://evil.example\r\n"), 403, "FORBIDDEN_ORIGIN"],
        [upgrade("/"), 401, "AUTH_ERROR"],
        [upgrade("/otel", "authorization: Bearer wrong\r\n"), 401, "AUTH_ERROR"],
      ];
      // Not a valid upgrade: both servers answer 400 (426 for another version) and log nothing.
      const bad = (lines: string) =>
        `GET / HTTP/1.1\r\nHost: a\r\nauthorization: Bearer s3cret\r\n${lines}\r\n`;
      const key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
      refusals.push(
        [bad(`Upgrade: websocket\r\n${key}Sec-WebSocket-Version: 13\r\n`), 400, "BAD_REQUEST"],
        [
          bad("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"),
          400,
          "BAD_REQUEST",
        ],
        [
          bad(
            `Upgrade: websocket\r\nConnection: Upgrade\r\n${key}${key}Sec-WebSocket-Version: 13\r\n`,
          ),
          400,
          "BAD_REQUEST",
        ],
        [
          bad(`Upgrade: websocket\r\nConnection: Upgrade\r\n${key}Sec-WebSocket-Version: 8\r\n`),
          426,
          "BAD_REQUEST",
        ],
        [
          upgrade("/", "authorization: Bearer s3cret\r\n").replace("GET", "POST"),
          400,
          "BAD_REQUEST",
        ],
        // "//x" is a path (not a host): no endpoint there.
        [upgrade("//x", "authorization: Bearer s3cret\r\n"), 404, "NOT_FOUND"],
      );
      for (const [head, status, code] of refusals) {
        const r = await request(engine.port, head);
        assert.equal(r.status, status, head);
        assert.equal(r.body.error.code, code, head);
      }
      // A long path is not echoed whole.
      const long = await request(
        engine.port,
        `GET /${"a".repeat(8000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
      );
      assert.equal(long.status, 404);
      assert.ok(long.body.error.message.length < 300, long.body.error.message.length);
      // Token lists in any case, as Deno.upgradeWebSocket() reads them.
      const lists = upgrade("/", "authorization: Bearer s3cret\r\n")
        .replace("Upgrade: websocket", "Upgrade: h2c, WebSocket")
        .replace("Connection: Upgrade", "Connection: keep-alive,upgrade");
      assert.equal(await statusOf(engine.port, lists), 101);
      const warnings = engine.logs.query({}).map((e) => e.message);
      assert.ok(warnings.some((m) => /opened by a web page at "https:\/\/evil.example"/.test(m)));
      assert.ok(warnings.some((m) => /missing or wrong token/.test(m)));
      assert.deepEqual(warnings.filter((m) => /Engine server error/.test(m)), []);
      await caller.close();
      await worker.close();
    } finally {
      await engine.stop();
    }
  });

  Deno.test(`[${transport}] a worker on the npm iii-sdk registers, is called and calls back`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const compat = await spawnWorker(
      "tests/fixtures/core/iii_compat_worker.ts",
      { ENGINE_URL: engine.url, OTEL_ENABLED: "false" },
      {
        args: [
          "run",
          "--allow-all",
          "--no-lock",
          `${ROOT}tests/fixtures/core/iii_compat_worker.ts`,
        ],
      },
    );
    try {
      const raw = await RawWorker.connect(engine.url);
      raw.serve("raw::sink", (d) => ({ got: d }));
      await waitForFunctions(raw, ["compat::echo", "raw::sink"]);
      const payload = "é ✓ 𝄞 日本語".repeat(20_000);
      assert.deepEqual((await raw.call("compat::echo", payload)).result.data, payload);
      const r = await raw.call("compat::call", { function_id: "raw::sink", payload: { n: 1 } });
      assert.deepEqual(r.result.ok, { got: { n: 1 } });
      await raw.close();
    } finally {
      await compat.stop();
      await engine.stop();
    }
  });
}

Deno.test("the engine process runs on ENGINE_TRANSPORT=native and refuses an unknown value", async () => {
  const { file, dir } = await tempConfig("port: 0\nconsole:\n  enabled: false\n");
  try {
    const bad = await runCli(["--config", file], { cwd: dir, env: { ENGINE_TRANSPORT: "fast" } });
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /^Error: Invalid ENGINE_TRANSPORT "fast": expected "deno" or "native"$/m,
    );
    const engine = await spawnEngine({
      config: file,
      cwd: dir,
      env: { ENGINE_TRANSPORT: "native" },
    });
    try {
      const health = await request(engine.port, "GET /health HTTP/1.1\r\nHost: a\r\n\r\n");
      assert.equal(health.body.status, "ok");
      // fetch() reads it too (the native server closes the connection after a plain answer).
      assert.match(
        await (await fetch(`http://127.0.0.1:${engine.port}/health`)).text(),
        /"status":"ok"/,
      );
    } finally {
      await engine.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

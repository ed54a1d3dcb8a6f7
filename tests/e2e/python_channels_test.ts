/**
 * Data channels in the Python SDK (`ChannelReader`, `ChannelWriter`,
 * `HttpStream`, `create_channel`), with real python3 worker processes
 * (`tests/fixtures/http/py_channels_worker.py`) on a real engine with
 * engine-http: streamed HTTP responses, raw request bodies, a channel between
 * two Python workers, the buffer bound holding a Python writer back, and
 * interop with the npm `iii-sdk@0.22.1` in both directions.
 */
import assert from "node:assert/strict";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { httpWorker } from "../../workers/http/mod.ts";
import { fetchJson, Fixture } from "../../workers/http/_e2e.ts";
import { ROOT } from "../support/engine_process.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";

interface Stack {
  engine: RunningEngine;
  base: string;
}

async function startStack(transport: TransportName): Promise<Stack> {
  const engine = await startEngine({
    port: 0,
    transport,
    shutdownGraceMs: 100,
    builtins: [{
      worker: httpWorker,
      config: httpWorker.parseConfig({ port: 0, default_timeout: 10_000 }),
    }],
  });
  const status = engine.describeBuiltin("engine-http") as { port: number };
  return { engine, base: `http://127.0.0.1:${status.port}` };
}

function startPython(
  engine: RunningEngine,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  return spawnWorker("", {
    ENGINE_URL: engine.url,
    PYTHONPATH: `${ROOT}sdk/python`,
    PYTHONDONTWRITEBYTECODE: "1",
    ...env,
  }, { cmd: "python3", args: ["-u", `${ROOT}tests/fixtures/http/py_channels_worker.py`] });
}

const call = (engine: RunningEngine, fn: string, payload: unknown, timeoutMs = 20_000) =>
  engine.builtinApi("engine").call(fn, payload, { timeoutMs });

Deno.test("Python SDK channels: HTTP streams, raw bodies, create_channel between Python workers", async (t) => {
  const { engine, base } = await startStack("native");
  const main = await startPython(engine);
  const peer = await startPython(engine, { ROLE: "peer" });
  try {
    await t.step(
      "an async handler streams status, headers and chunks with HttpStream",
      async () => {
        const response = await fetch(`${base}/pychan/stream?parts=4`);
        assert.equal(response.status, 201);
        assert.equal(response.headers.get("content-type"), "text/plain");
        assert.equal(response.headers.get("x-streamed"), "yes");
        assert.equal(await response.text(), "chunk 0;chunk 1;chunk 2;chunk 3;");
      },
    );

    await t.step(
      "a sync handler streams a 256 000-byte chunk (split into 64 KiB frames)",
      async () => {
        const response = await fetch(`${base}/pychan/stream-sync`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/octet-stream");
        const body = new Uint8Array(await response.arrayBuffer());
        assert.equal(body.length, 256_001);
        assert.equal(body[255], 255);
        assert.equal(body[256_000], "!".charCodeAt(0));
      },
    );

    await t.step("status and headers with no chunk: an empty body", async () => {
      const response = await fetch(`${base}/pychan/empty`);
      assert.equal(response.status, 202);
      assert.equal(response.headers.get("x-test"), "yes");
      assert.equal(await response.text(), "");
    });

    await t.step("a handler reads a text and a binary request body", async () => {
      const text = await fetchJson(base, "/pychan/read-body", {
        method: "POST",
        body: "héllo wörld",
        headers: { "content-type": "text/plain" },
      });
      assert.equal(text.status, 200);
      const textBody = text.body as {
        size: number;
        base64: string;
        parsed: unknown;
        kinds: string[];
      };
      assert.deepEqual(textBody.kinds, ["ChannelReader", "ChannelWriter"]);
      assert.equal(textBody.size, new TextEncoder().encode("héllo wörld").length);
      assert.equal(new TextDecoder().decode(decodeBase64(textBody.base64)), "héllo wörld");
      assert.equal(textBody.parsed, "héllo wörld");

      const binary = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
      const bin = await fetchJson(base, "/pychan/read-body", {
        method: "POST",
        body: binary,
        headers: { "content-type": "application/octet-stream" },
      });
      assert.equal(bin.status, 200);
      const binBody = bin.body as { size: number; base64: string };
      assert.equal(binBody.size, binary.length);
      assert.deepEqual(decodeBase64(binBody.base64), binary);

      const sync = await fetchJson(base, "/pychan/read-body-sync", {
        method: "POST",
        body: binary,
      });
      assert.deepEqual(sync, { ...sync, status: 200, body: { size: binary.length } });
    });

    await t.step("create_channel hands a reader to another Python worker", async () => {
      const result = await call(engine, "pychan::send", { parts: 50 });
      const text = Array.from({ length: 50 }, (_, i) => `part ${i};`).join("");
      assert.deepEqual(result, {
        size: text.length,
        text,
        messages: ["hello reader"],
        kind: "ChannelReader",
      });
      // From a sync handler, one write of 1 MiB + 1 (17 frames) through a buffer of 64.
      const sync = await call(engine, "pychan::send_sync", { size: 1024 * 1024 + 1 }) as {
        size: number;
      };
      assert.equal(sync.size, 1024 * 1024 + 1);
    });

    await t.step(
      "a writer that drops its connection breaks the reader off with an error",
      async () => {
        const result = await call(engine, "pychan::send", { parts: 3, abort: true }) as {
          error: string;
          message: string;
        };
        assert.equal(result.error, "channel_broken");
        assert.match(
          result.message,
          /broke off before its writer closed it \(code 1011: writer broke off\)/,
        );
      },
    );

    await t.step(
      "a refused end names the engine's reason; a bad buffer_size is refused",
      async () => {
        const { reader } = engine.builtinApi("engine").channels!.create();
        const wrong = await call(engine, "pychan::read_given", {
          reader: { ...reader, access_key: "nope" },
        });
        assert.equal((wrong as { error: string }).error, "CHANNEL_NOT_FOUND");
        assert.match((wrong as { message: string }).message, /HTTP 404: .*wrong access key/);
        await assert.rejects(
          call(engine, "pychan::send", { parts: 1, buffer_size: 5000 }),
          /Invalid input for engine::channels::create: field "buffer_size": Too big: expected number to be <=1024/,
        );
      },
    );

    await t.step("the buffer bound holds a Python writer back until the reader reads", async () => {
      const channels = engine.builtinApi("engine").channels!;
      const { reader, writer } = channels.create({ bufferSize: 4 });
      const count = 256; // 16 MiB in 64 KiB chunks: more than the socket buffers hold
      const flood = call(engine, "pychan::flood", { writer, count, size: 65536 }, 60_000);
      flood.catch(() => {});
      const end = channels.openReader(reader);
      const first = await end.read();
      assert.ok(first instanceof Uint8Array);
      const written = async () =>
        (await call(engine, "pychan::written", {}) as { written: number }).written;
      let stalled = -1;
      for (let i = 0; i < 100 && stalled < 0; i++) {
        const before = await written();
        await new Promise((r) => setTimeout(r, 300));
        if (before > 0 && before === await written()) stalled = before;
      }
      assert.ok(stalled > 0 && stalled < count, `the writer was not held back (${stalled})`);
      let bytes = first.byteLength;
      for (;;) {
        const frame = await end.read();
        if (frame === null) break;
        bytes += (frame as Uint8Array).byteLength;
      }
      assert.equal(bytes, count * 65536);
      assert.deepEqual(await flood, { written: count });
    });
  } finally {
    await main.stop();
    await peer.stop();
    await engine.stop();
  }
});

Deno.test("Python SDK channels interoperate with npm iii-sdk@0.22.1 workers, both ways", async (t) => {
  const { engine } = await startStack("deno");
  const python = await startPython(engine, { ROLE: "peer", ALIAS: "1" });
  const npmSender = await Fixture.start("iii_channels_worker", engine);
  try {
    await t.step(
      "an iii-sdk createChannel() reader reaches a Python handler as a ChannelReader",
      async () => {
        const result = await call(engine, "chan::send", { parts: 30 });
        const text = Array.from({ length: 30 }, (_, i) => `part ${i};`).join("");
        assert.deepEqual(result, { size: text.length, text, messages: [], kind: "ChannelReader" });
      },
    );
  } finally {
    await npmSender.kill();
    await python.stop();
    await engine.stop();
  }

  const second = await startStack("deno");
  const pySender = await startPython(second.engine);
  const npmPeer = await Fixture.start("iii_channels_worker", second.engine, { ROLE: "peer" });
  try {
    await t.step("a Python create_channel() reader reaches an iii-sdk handler", async () => {
      const result = await call(second.engine, "pychan::send", {
        parts: 30,
        target: "chan::receive",
      });
      const text = Array.from({ length: 30 }, (_, i) => `part ${i};`).join("");
      // The npm reader drops text messages nobody listens for: only the bytes count.
      assert.deepEqual(result, { size: text.length, text });
    });
  } finally {
    await npmPeer.kill();
    await pySender.stop();
    await second.engine.stop();
  }
});

function decodeBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

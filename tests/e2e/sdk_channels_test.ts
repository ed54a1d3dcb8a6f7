/**
 * Data channels through our TypeScript SDK against a real engine with
 * engine-http: a handler streaming an HTTP response and reading text and
 * binary request bodies, `createChannel()` between two workers of our SDK,
 * and interop with a worker on the published npm `iii-sdk@0.22.1` in both
 * directions.
 */
import assert from "node:assert/strict";
import { fetchJson, Fixture, startStack } from "../../workers/http/_e2e.ts";
import {
  type ChannelReader,
  type ChannelWriter,
  createChannel,
  EngineError,
  type HttpRequest,
  openChannel,
  registerWorker,
  streamResponse,
  type Worker,
} from "../../sdk/typescript/mod.ts";

const FAST = { reconnect: { initialDelayMs: 10, maxDelayMs: 50 } };

/** The bytes of `iii::flood`'s data: byte `i` is `i % 251`. */
function pattern(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => i % 251);
}

/** Registers an HTTP-triggered function on `worker`. */
function route(
  worker: Worker,
  id: string,
  path: string,
  method: string,
  handler: (req: HttpRequest) => unknown,
): void {
  worker.registerFunction(id, handler);
  worker.registerTrigger({
    type: "http",
    function_id: id,
    config: { api_path: path, http_method: method },
  });
}

/** What a reader received: its data as text, its size, and its messages. */
async function receive(
  reader: ChannelReader,
): Promise<{ size: number; text: string; messages: string[] }> {
  const messages: string[] = [];
  reader.onMessage((text) => messages.push(text));
  const bytes = await reader.readAll();
  return { size: bytes.byteLength, text: new TextDecoder().decode(bytes), messages };
}

Deno.test("TypeScript SDK channels: HTTP streaming and bodies, createChannel, iii-sdk interop", async (t) => {
  const stack = await startStack({ default_timeout: 5000 });
  const a = registerWorker(stack.engine.url, { worker_name: "sdk-a", ...FAST });
  const b = registerWorker(stack.engine.url, { worker_name: "sdk-b", ...FAST });
  let iii: Fixture | undefined;
  try {
    route(a, "sdkchan::stream", "/sdkchan/stream", "GET", async (req) => {
      const parts = Number(req.query_params.parts ?? "3");
      const res = streamResponse(req.response, {
        status_code: 201,
        headers: { "content-type": "text/plain", "x-streamed": "yes" },
      });
      for (let i = 0; i < parts; i++) await res.write(`chunk ${i};`);
      await res.end();
    });
    route(a, "sdkchan::big", "/sdkchan/big", "GET", async (req) => {
      const res = streamResponse(req.response, {
        headers: { "content-type": "application/octet-stream" },
      });
      const data = pattern(3 * 1024 * 1024 + 17); // past the 64 KiB frames and the reader's bound
      for (let offset = 0; offset < data.length; offset += 200_000) {
        await res.write(data.subarray(offset, offset + 200_000));
      }
      await res.end();
    });
    route(a, "sdkchan::empty", "/sdkchan/empty", "GET", async (req) => {
      await streamResponse(req.response, { status_code: 202, headers: { "x-test": "yes" } }).end();
    });
    route(a, "sdkchan::late", "/sdkchan/late", "GET", (req) => {
      // Returns at once and streams afterwards: engine-http waits for the opened channel.
      const res = streamResponse(req.response);
      setTimeout(() => res.end("late body"), 50);
      return undefined;
    });
    route(a, "sdkchan::read_body", "/sdkchan/read-body", "POST", async (req) => {
      const bytes = await req.request_body.readAll();
      let binary = "";
      for (const byte of bytes) binary += String.fromCharCode(byte);
      return {
        status_code: 200,
        body: { size: bytes.byteLength, base64: btoa(binary), parsed: req.body },
      };
    });
    route(a, "sdkchan::read_text", "/sdkchan/read-text", "POST", async (req) => {
      return { status_code: 200, body: { text: await req.request_body.readText() } };
    });
    route(a, "sdkchan::plain", "/sdkchan/plain", "GET", (req) => ({
      status_code: 200,
      body: { reader: req.request_body.constructor.name, writer: req.response.constructor.name },
    }));
    b.registerFunction(
      "sdkchan::receive",
      (input: { reader: ChannelReader }) => receive(input.reader),
    );
    b.registerFunction(
      "sdkchan::fill",
      async (input: { writer: ChannelWriter; parts: number }) => {
        await input.writer.sendMessage("from sdk-b");
        for (let i = 0; i < input.parts; i++) await input.writer.write(`part ${i};`);
        await input.writer.end();
        return { parts: input.parts };
      },
    );
    await Promise.all([a.ready(), b.ready()]);
    await a.trigger({ function_id: "engine::health::check", payload: {} }); // registrations handled
    await b.trigger({ function_id: "engine::health::check", payload: {} });

    await t.step("a handler streams status, headers and chunks through engine-http", async () => {
      const response = await fetch(`${stack.base}/sdkchan/stream?parts=5`);
      assert.equal(response.status, 201);
      assert.equal(response.headers.get("content-type"), "text/plain");
      assert.equal(response.headers.get("x-streamed"), "yes");
      assert.equal(await response.text(), "chunk 0;chunk 1;chunk 2;chunk 3;chunk 4;");
    });

    await t.step("a 3 MiB streamed response arrives whole", async () => {
      const response = await fetch(`${stack.base}/sdkchan/big`);
      assert.equal(response.status, 200);
      const body = new Uint8Array(await response.arrayBuffer());
      assert.equal(body.byteLength, 3 * 1024 * 1024 + 17);
      assert.deepEqual(body, pattern(body.byteLength));
    });

    await t.step("status and headers with no chunk: an empty body", async () => {
      const response = await fetch(`${stack.base}/sdkchan/empty`);
      assert.equal(response.status, 202);
      assert.equal(response.headers.get("x-test"), "yes");
      assert.equal(await response.text(), "");
    });

    await t.step("a handler returning before it streams", async () => {
      const response = await fetch(`${stack.base}/sdkchan/late`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "late body");
    });

    await t.step("a handler reads a text and a binary request body", async () => {
      const text = await fetchJson(stack.base, "/sdkchan/read-text", {
        method: "POST",
        body: "héllo wörld",
        headers: { "content-type": "text/plain" },
      });
      assert.deepEqual(text, { ...text, status: 200, body: { text: "héllo wörld" } });

      const binary = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
      const bin = await fetchJson(stack.base, "/sdkchan/read-body", {
        method: "POST",
        body: binary,
        headers: { "content-type": "application/octet-stream" },
      });
      assert.equal(bin.status, 200);
      const got = bin.body as { size: number; base64: string };
      assert.equal(got.size, binary.length);
      assert.deepEqual(Uint8Array.from(atob(got.base64), (c) => c.charCodeAt(0)), binary);
    });

    await t.step(
      "a handler ignoring its refs answers with its value; they are live ends",
      async () => {
        const plain = await fetchJson(stack.base, "/sdkchan/plain");
        assert.equal(plain.status, 200);
        assert.deepEqual(plain.body, { reader: "ChannelReader", writer: "ChannelWriter" });
      },
    );

    await t.step("createChannel() between two workers of our SDK, both ways", async () => {
      const toB = await createChannel({ worker: a, bufferSize: 4 });
      const received = a.trigger({
        function_id: "sdkchan::receive",
        payload: { reader: toB.readerRef },
      });
      await toB.writer.sendMessage("hello b");
      for (let i = 0; i < 50; i++) await toB.writer.write(`part ${i};`);
      await toB.writer.end();
      const expected = Array.from({ length: 50 }, (_, i) => `part ${i};`).join("");
      assert.deepEqual(await received, {
        size: expected.length,
        text: expected,
        messages: ["hello b"],
      });

      const fromB = await createChannel({ worker: a });
      const filled = a.trigger({
        function_id: "sdkchan::fill",
        payload: { writer: fromB.writerRef, parts: 3 },
      });
      assert.deepEqual(await receive(fromB.reader), {
        size: 21,
        text: "part 0;part 1;part 2;",
        messages: ["from sdk-b"],
      });
      assert.deepEqual(await filled, { parts: 3 });
    });

    await t.step("an end opened twice, and a bad buffer size, are refused", async () => {
      const channel = await createChannel({ worker: a });
      const received = a.trigger({
        function_id: "sdkchan::receive",
        payload: { reader: channel.readerRef },
      });
      await channel.writer.end();
      assert.deepEqual(await received, { size: 0, text: "", messages: [] });
      const again = await createChannel({ worker: a });
      const first = receive(again.reader);
      await again.writer.write("x");
      const twice = openChannel(again.readerRef, {
        worker: a,
      });
      await assert.rejects(twice.readAll(), (err: unknown) => {
        assert.ok(err instanceof EngineError);
        assert.equal(err.code, "channel_refused");
        assert.match(err.message, /HTTP 409\): .*claimed already/);
        return true;
      });
      await again.writer.end();
      assert.equal((await first).text, "x");
      await assert.rejects(
        createChannel({ worker: a, bufferSize: 5000 }),
        /Invalid input for engine::channels::create: field "buffer_size": Too big: expected number to be <=1024/,
      );
    });

    iii = await Fixture.start("iii_interop_worker", stack.engine);

    await t.step("our writer to an iii-sdk reader", async () => {
      const channel = await createChannel({ worker: a, bufferSize: 8 });
      const received = a.trigger({
        function_id: "iii::receive",
        payload: { reader: channel.readerRef },
      });
      await channel.writer.sendMessage("hello iii");
      const data = "z".repeat(200_000); // four frames
      await channel.writer.write(data);
      await channel.writer.end();
      assert.deepEqual(await received, { size: data.length, text: data, messages: ["hello iii"] });
    });

    await t.step("an iii-sdk writer to our reader (its createChannel, and ours)", async () => {
      const expected = Array.from({ length: 20 }, (_, i) => `part ${i};`).join("");
      const viaIii = await a.trigger({
        function_id: "iii::send",
        payload: { to: "sdkchan::receive", parts: 20 },
      });
      assert.deepEqual(viaIii, { size: expected.length, text: expected, messages: ["from iii"] });

      const channel = await createChannel({ worker: a, bufferSize: 4 });
      const flood = a.trigger({
        function_id: "iii::flood",
        payload: { writer: channel.writerRef, count: 40, size: 50_000 },
      });
      const messages: string[] = [];
      channel.reader.onMessage((text) => messages.push(text));
      let size = 0;
      const chunks: Uint8Array[] = [];
      for await (const chunk of channel.reader) {
        assert.ok(chunk.byteLength <= 64 * 1024);
        chunks.push(chunk);
        size += chunk.byteLength;
      }
      assert.equal(size, 2_000_000);
      const all = new Uint8Array(size);
      chunks.reduce((offset, chunk) => (all.set(chunk, offset), offset + chunk.byteLength), 0);
      assert.deepEqual(all, pattern(size));
      assert.deepEqual(messages, ["flood starts"]);
      assert.deepEqual(await flood, { written: 2_000_000 });
    });
  } finally {
    await iii?.kill();
    await a.shutdown();
    await b.shutdown();
    await stack.stop();
  }
});

/**
 * engine-http's channels against careless handlers and clients, on both
 * transports: a handler worker speaking raw frames opens its `response` ref
 * as a plain WebSocket, so each test sees exactly what the engine does to
 * the writer's socket, and the engine's channel count after each.
 */
import assert from "node:assert/strict";
import type { ChannelRef } from "../../engine/api.ts";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { RawWorker } from "../../tests/support/raw_worker.ts";
import { httpWorker } from "./mod.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

interface Writer {
  socket: WebSocket;
  closed: Promise<CloseEvent>;
}

/** An engine with engine-http, and a raw worker to serve its handlers. */
async function stack(transport: TransportName) {
  const engine = await startEngine({
    port: 0,
    transport,
    shutdownGraceMs: 100,
    builtins: [{
      worker: httpWorker,
      config: httpWorker.parseConfig({ port: 0, default_timeout: 3000 }),
    }],
  });
  const port = (engine.describeBuiltin("engine-http") as { port: number }).port;
  const worker = await RawWorker.connect(engine.url);
  return { engine, worker, base: `http://127.0.0.1:${port}` };
}

/** Registers `handler` for `GET path` and waits until engine-http routes it. */
async function route(
  engine: RunningEngine,
  worker: RawWorker,
  path: string,
  handler: (req: { response: ChannelRef; request_body: ChannelRef }) => unknown,
): Promise<void> {
  const id = `ends::${path.slice(1)}`;
  worker.serve(id, (data) => handler(data as { response: ChannelRef; request_body: ChannelRef }));
  worker.send({
    type: "registertrigger",
    id: `trigger-${id}`,
    trigger_type: "http",
    function_id: id,
    config: { api_path: path, http_method: "GET" },
  });
  const routed = () =>
    (engine.describeBuiltin("engine-http") as { routes: { function_id: string }[] }).routes
      .some((r) => r.function_id === id);
  for (let i = 0; !routed(); i++) {
    if (i === 400) throw new Error(`Route ${path} was not registered within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Opens `ref` as a plain WebSocket, as an SDK's channel end does. */
async function open(engine: RunningEngine, ref: ChannelRef): Promise<Writer> {
  const socket = new WebSocket(
    `${engine.url}/ws/channels/${ref.channel_id}?key=${ref.access_key}&dir=${ref.direction}`,
  );
  socket.binaryType = "arraybuffer";
  const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`Cannot open ${ref.channel_id}`));
  });
  return { socket, closed };
}

/** `promise`, or `"pending"` if it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<"pending">((resolve) => timer = setTimeout(resolve, ms, "pending")),
  ]).finally(() => clearTimeout(timer));
}

for (const transport of TRANSPORTS) {
  Deno.test(`engine-http channels (${transport}): the engine lets go of every end`, async (t) => {
    const { engine, worker, base } = await stack(transport);
    const channels = engine.builtinApi("engine").channels!;
    const writers: Writer[] = [];
    try {
      await t.step("a value that wins the race closes the writer the handler opened", async () => {
        await route(engine, worker, "/value", async (req) => {
          writers.push(await open(engine, req.response));
          return { status_code: 200, body: "value" };
        });
        const response = await fetch(`${base}/value`);
        assert.equal(await response.text(), '"value"');
        const closed = await within(writers.at(-1)!.closed, 10_000);
        assert.notEqual(closed, "pending", "the writer's socket was left open");
        if (closed === "pending") return;
        assert.equal(closed.code, 1000);
        assert.equal(closed.reason, "removed: the request ended");
        assert.equal(channels.size, 0);
      });

      await t.step("a handler logging its request logs no access key", async () => {
        let key = "";
        await route(engine, worker, "/logged", async (req) => {
          key = req.response.access_key;
          await worker.call("engine::log::info", { message: "handler input", data: req });
          return { status_code: 204 };
        });
        assert.equal((await fetch(`${base}/logged`)).status, 204);
        const [entry] = engine.logs.query({ text: "handler input" });
        assert.ok(entry, "the handler's log entry");
        const stored = JSON.stringify(entry);
        assert.ok(key.length > 0 && !stored.includes(key), `the access key was logged: ${stored}`);
        assert.match(stored, /"access_key":"\[redacted\]"/);
      });

      await route(engine, worker, "/endless", async (req) => {
        const writer = await open(engine, req.response);
        writers.push(writer);
        let n = 0;
        const timer = setInterval(() => {
          if (writer.socket.readyState === WebSocket.OPEN) {
            writer.socket.send(new TextEncoder().encode(`${n++};`));
          }
        }, 20);
        writer.closed.then(() => clearInterval(timer));
        return undefined;
      });

      await t.step("HEAD of a streamed response answers without reading its body", async () => {
        const response = await within(fetch(`${base}/endless`, { method: "HEAD" }), 10_000);
        assert.notEqual(response, "pending", "HEAD read the endless body");
        if (response === "pending") return;
        assert.equal(response.status, 200);
        assert.equal(await response.text(), "");
        const closed = await within(writers.at(-1)!.closed, 5000);
        assert.notEqual(closed, "pending", "the writer's socket was left open");
        assert.equal(channels.size, 0);
      });

      await t.step("stopping engine-http cuts a stream in progress after its grace", async () => {
        const response = await fetch(`${base}/endless`);
        const body = response.body!.getReader();
        assert.equal(new TextDecoder().decode((await body.read()).value), "0;");
        const reading = (async () => {
          for (;;) if ((await body.read()).done) return "ended";
        })().catch(() => "cut short");
        // The grace is default_timeout (3 s) here: the stop must not wait for the stream's end.
        const stopped = await within(
          engine.stopBuiltin("engine-http").then(() => "stopped"),
          15_000,
        );
        assert.equal(stopped, "stopped", "engine-http's stop waited for an endless stream");
        assert.equal(await within(reading, 5000), "cut short");
        const closed = await within(writers.at(-1)!.closed, 5000);
        assert.notEqual(closed, "pending", "the writer's socket was left open");
        assert.equal(channels.size, 0);
        const logged = engine.logs.query({ level: "warn", text: "the HTTP worker is stopping" });
        assert.equal(logged.length, 1);
      });
    } finally {
      for (const w of writers) w.socket.close();
      await worker.close();
      await engine.stop();
    }
  });
}

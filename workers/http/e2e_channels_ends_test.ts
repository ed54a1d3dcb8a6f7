/**
 * engine-http's channels against careless handlers and clients, on both
 * transports: a handler worker speaking raw frames opens its `response` ref
 * as a plain WebSocket, so each test sees exactly what the engine does to
 * the writer's socket, and the engine's channel count after each.
 */
import assert from "node:assert/strict";
import { open, route, stack, TRANSPORTS, within, type Writer } from "./_channels_e2e.ts";

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

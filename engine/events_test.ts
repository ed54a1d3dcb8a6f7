import assert from "node:assert/strict";
import type { BuiltinWorker, EngineApi } from "./api.ts";
import { type RunningEngine, startEngine } from "./engine.ts";
import { type EventBatch, EVENTS_TRIGGER_TYPE } from "./events.ts";

/** A built-in worker that hands its API to the test. */
function probe(name = "probe"): { worker: BuiltinWorker; api: Promise<EngineApi> } {
  const { promise, resolve } = Promise.withResolvers<EngineApi>();
  return {
    api: promise,
    worker: {
      name,
      description: "test probe",
      parseConfig: (raw) => raw,
      defaultConfig: {},
      start: (api) => {
        resolve(api);
        return Promise.resolve({ stop: () => Promise.resolve() });
      },
    },
  };
}

async function withEngine(fn: (e: RunningEngine, api: EngineApi) => Promise<void>) {
  const engine = await startEngine({ port: 0 });
  const p = probe();
  try {
    await engine.startBuiltin(p.worker, {});
    await fn(engine, await p.api);
  } finally {
    await engine.stop();
  }
}

/** Collects batches until `done(all events so far)` holds. */
function collector(done: (batches: EventBatch[]) => boolean) {
  const batches: EventBatch[] = [];
  const { promise, resolve } = Promise.withResolvers<EventBatch[]>();
  const handler = (payload: unknown) => {
    batches.push(payload as EventBatch);
    if (done(batches)) resolve(batches);
    return null;
  };
  return { handler, finished: promise };
}

Deno.test("engine::events delivers log entries at or above the configured level", async () => {
  await withEngine(async (engine, api) => {
    const c = collector((b) => b.flatMap((x) => x.events).length >= 2);
    api.registerFunction("probe::events", c.handler, { metadata: { internal: true } });
    api.registerTrigger({
      type: EVENTS_TRIGGER_TYPE,
      function_id: "probe::events",
      config: { kinds: ["log"], level: "warn" },
    });
    engine.logs.write({ time: 1, level: "info", message: "quiet", source: "t" });
    engine.logs.write({ time: 2, level: "warn", message: "loud", source: "t" });
    engine.logs.write({ time: 3, level: "error", message: "louder", source: "t" });
    const events = (await c.finished).flatMap((b) => b.events);
    assert.deepEqual(
      events.map((e) => e.kind === "log" ? e.log.message : e.kind),
      ["loud", "louder"],
    );
  });
});

Deno.test("engine::events delivers spans and worker changes, and its deliveries are not spans", async () => {
  await withEngine(async (engine, api) => {
    const c = collector((b) => {
      const events = b.flatMap((x) => x.events);
      return events.some((e) => e.kind === "span") &&
        events.some((e) => e.kind === "engine" && e.change.type === "functions_changed");
    });
    api.registerFunction("probe::events", c.handler);
    api.registerTrigger({ type: EVENTS_TRIGGER_TYPE, function_id: "probe::events", config: {} });
    api.registerFunction("probe::work", () => "done");
    await api.call("probe::work", {}, {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    const events = (await c.finished).flatMap((b) => b.events);
    const span = events.find((e) => e.kind === "span");
    assert.ok(span?.kind === "span" && span.span.functionId === "probe::work");
    assert.ok(
      engine.traces.ring.toArray().every((s) => s.functionId !== "probe::events"),
      "deliveries are not recorded as spans",
    );
  });
});

Deno.test("engine::events drops the oldest events while the subscriber is slow, and says how many", async () => {
  await withEngine(async (engine, api) => {
    const release = Promise.withResolvers<void>();
    const batches: EventBatch[] = [];
    const first = Promise.withResolvers<void>();
    const second = Promise.withResolvers<void>();
    api.registerFunction("probe::slow", async (payload) => {
      batches.push(payload as EventBatch);
      if (batches.length === 1) {
        first.resolve();
        await release.promise;
      }
      if (batches.length === 2) second.resolve();
      return null;
    });
    api.registerTrigger({
      type: EVENTS_TRIGGER_TYPE,
      function_id: "probe::slow",
      config: { kinds: ["log"], buffer: 3 },
    });
    engine.logs.write({ time: 0, level: "info", message: "first", source: "t" });
    await first.promise;
    for (let i = 1; i <= 10; i++) {
      engine.logs.write({ time: i, level: "info", message: `m${i}`, source: "t" });
    }
    release.resolve();
    await second.promise;
    const late = batches[1]!;
    assert.equal(late.dropped, 7);
    assert.deepEqual(late.events.map((e) => e.kind === "log" && e.log.message), [
      "m8",
      "m9",
      "m10",
    ]);
  });
});

Deno.test("engine::events refuses an invalid config, naming the field", async () => {
  await withEngine(async (_engine, api) => {
    api.registerFunction("probe::events", () => null);
    api.registerTrigger({
      type: EVENTS_TRIGGER_TYPE,
      function_id: "probe::events",
      config: { kinds: ["gossip"] },
    });
    const list = async () =>
      (await api.call("engine::registered-triggers::list", {}) as {
        registered_triggers: { function_id: string; status: string; error: string | null }[];
      }).registered_triggers.find((t) => t.function_id === "probe::events");
    let trigger = await list();
    const deadline = Date.now() + 10_000;
    while (trigger?.status === "pending") {
      assert.ok(Date.now() < deadline, "the probe::events trigger stayed pending");
      await new Promise((resolve) => setTimeout(resolve, 10));
      trigger = await list();
    }
    assert.equal(trigger?.status, "failed");
    assert.match(trigger?.error ?? "", /Invalid engine::events trigger config: field "kinds\.0"/);
  });
});

Deno.test("Engine records a span for traced calls only", async () => {
  await withEngine(async (engine, api) => {
    const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    api.registerFunction("probe::plain", () => null);
    api.registerFunction("probe::hidden", () => null, { metadata: { internal: true } });
    const cases: [string, string, Parameters<EngineApi["call"]>[2], boolean][] = [
      ["a built-in function without a trace context", "probe::plain", {}, false],
      ["a built-in function within a trace", "probe::plain", { traceparent: parent }, true],
      ["an internal function within a trace", "probe::hidden", { traceparent: parent }, false],
      ["a call that opts out", "probe::plain", { traceparent: parent, trace: false }, false],
      ["an engine log call", "engine::log::info", { traceparent: parent }, false],
    ];
    for (const [what, id, options, traced] of cases) {
      const before = engine.traces.ring.size;
      await api.call(id, { message: "m" }, options);
      assert.equal(engine.traces.ring.size - before, traced ? 1 : 0, what);
    }
    const [span] = engine.traces.trace("0af7651916cd43dd8448eb211c80319c");
    assert.equal(span?.parentSpanId, "b7ad6b7169203331", "parented on the caller's span");
  });
});

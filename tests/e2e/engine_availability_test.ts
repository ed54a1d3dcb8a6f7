/**
 * The engine's own trigger types `engine::workers-available` and
 * `engine::functions-available`, over real sockets with raw protocol frames:
 * what they fire, that a failing or stuck function does not stop the others'
 * deliveries, that a burst of registrations fires a few times, not once
 * per function, and the JSON Schemas the engine's trigger types declare.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { bind, calls } from "../support/bound_triggers.ts";
import { logRecord } from "../../engine/log_trigger.ts";

Deno.test("engine::workers-available fires connected, metadata updated and disconnected, past a failing and a stuck function", () =>
  withEngine(async (url) => {
    const watcher = await RawWorker.connect(url);
    const failing = await RawWorker.connect(url);
    const stuck = await RawWorker.connect(url);
    try {
      watcher.serve("watch::workers", () => null);
      failing.serve("watch::fail", () => {
        throw new Error("the watcher is broken");
      });
      stuck.serve("watch::stuck", () => new Promise(() => {}));
      await waitForFunctions(watcher, ["watch::workers", "watch::fail", "watch::stuck"]);
      await bind(failing, "w-fail", "engine::workers-available", "watch::fail");
      await bind(stuck, "w-stuck", "engine::workers-available", "watch::stuck");
      await bind(watcher, "w-ok", "engine::workers-available", "watch::workers");

      const isEvent = (event: string, id?: string) => (f: Frame) =>
        f.type === "invokefunction" && f.function_id === "watch::workers" &&
        f.data?.event === event && (id === undefined || f.data?.worker_id === id);
      for (let round = 0; round < 3; round++) {
        const connected = watcher.next(isEvent("worker_connected"));
        const bee = await RawWorker.connect(url);
        assert.equal((await connected).data.worker_id, bee.workerId);
        const described = watcher.next(isEvent("worker_metadata_updated", bee.workerId));
        await bee.call("engine::workers::register", { name: `bee-${round}` });
        assert.equal((await described).data.worker_name, `bee-${round}`);
        const left = watcher.next(isEvent("worker_disconnected", bee.workerId));
        await bee.close();
        assert.deepEqual((await left).data, {
          event: "worker_disconnected",
          worker_id: bee.workerId,
          worker_name: `bee-${round}`,
        });
      }
      assert.equal(calls(watcher, "watch::workers").length, 9, "one call per event");
      assert.ok(calls(failing, "watch::fail").length >= 9, "the failing function was called");

      const logs = (await watcher.call("engine::logs::list", { text: "w-fail" })).result.logs;
      assert.equal(logs.length, 1, `one warning for the failing trigger: ${JSON.stringify(logs)}`);
      assert.match(logs[0].message, /watch::fail failed: invocation_failed: the watcher is broken/);
    } finally {
      await stuck.close();
      await failing.close();
      await watcher.close();
    }
  }));

Deno.test("engine::functions-available coalesces a burst of 1,000 registrations and fires on unregister", () =>
  withEngine(async (url) => {
    const watcher = await RawWorker.connect(url);
    const burst = await RawWorker.connect(url);
    try {
      watcher.serve("watch::functions", () => null);
      await waitForFunctions(watcher, ["watch::functions"]);
      await bind(watcher, "f-ok", "engine::functions-available", "watch::functions");

      const ids = Array.from({ length: 1000 }, (_, i) => `burst::f${i}`);
      const all = watcher.next(
        (f) =>
          f.function_id === "watch::functions" &&
          f.data.functions.filter((v: Frame) => v.function_id.startsWith("burst::")).length ===
            1000,
        {
          description: "a functions_changed call listing the 1,000 functions",
          timeoutMs: 20_000,
        },
      );
      for (const id of ids) burst.send({ type: "registerfunction", id, description: `n ${id}` });
      const listed = (await all).data;
      assert.equal(listed.event, "functions_changed");
      const one = listed.functions.find((v: Frame) => v.function_id === "burst::f7");
      assert.equal(one.description, "n burst::f7");
      assert.match(one.worker_name, /^worker-/);
      const fired = calls(watcher, "watch::functions").length;
      assert.ok(fired <= 20, `a few calls for 1,000 registrations, not one each: ${fired}`);

      const gone = watcher.next((f) =>
        f.function_id === "watch::functions" &&
        !f.data.functions.some((v: Frame) => v.function_id === "burst::f0")
      );
      burst.send({ type: "unregisterfunction", id: "burst::f0" });
      assert.equal(
        (await gone).data.functions.filter((v: Frame) => v.function_id.startsWith("burst::"))
          .length,
        999,
      );

      const empty = watcher.next((f) =>
        f.function_id === "watch::functions" &&
        !f.data.functions.some((v: Frame) => v.function_id.startsWith("burst::"))
      );
      await burst.close();
      await empty;
      // Internal functions (the engine's log functions) are left out unless asked for.
      assert.ok(
        !(await empty).data.functions.some((v: Frame) => v.function_id.startsWith("engine::log::")),
      );
    } finally {
      await burst.close();
      await watcher.close();
    }
  }));

Deno.test("the engine's trigger types refuse a bad config, naming the type and field", () =>
  withEngine(async (url) => {
    const w = await RawWorker.connect(url);
    try {
      w.serve("watch::any", () => null);
      await waitForFunctions(w, ["watch::any"]);
      const cases: [string, unknown, RegExp][] = [
        ["log", { level: "loud" }, /^Invalid log trigger config: field "level": /],
        [
          "engine::functions-available",
          { include_internal: "yes" },
          /^Invalid engine::functions-available trigger config: field "include_internal": /,
        ],
      ];
      for (const [type, config, message] of cases) {
        const refused = w.next((f) => f.type === "triggerregistrationresult" && f.id === type);
        w.send({
          type: "registertrigger",
          id: type,
          trigger_type: type,
          function_id: "watch::any",
          config,
        });
        const error = (await refused).error;
        assert.equal(error.code, "trigger_registration_failed", type);
        assert.match(error.message, message);
      }
      // A worker cannot take the engine's types over.
      const taken = w.next((f) => f.type === "error");
      w.send({ type: "registertriggertype", id: "log", description: "mine" });
      assert.deepEqual((await taken).error, {
        code: "trigger_type_taken",
        message:
          'Cannot register trigger type "log": the built-in worker "engine" provides it, use another id',
      });
    } finally {
      await w.close();
    }
  }));

Deno.test("engine::workers-available: a delivery's span is a root, and what its function calls is under it", () =>
  withEngine(async (url) => {
    const watcher = await RawWorker.connect(url);
    try {
      // The function calls engine::health::check in its call's trace, as an SDK's handler would.
      watcher.serve("watch::traced", (_data, frame) => {
        watcher.send({
          type: "invokefunction",
          invocation_id: crypto.randomUUID(),
          function_id: "engine::health::check",
          data: {},
          traceparent: frame.traceparent,
        });
        return null;
      });
      await waitForFunctions(watcher, ["watch::traced"]);
      await bind(watcher, "w-traced", "engine::workers-available", "watch::traced");
      const delivered = watcher.next((f) =>
        f.function_id === "watch::traced" && f.data?.event === "worker_connected"
      );
      const bee = await RawWorker.connect(url);
      await bee.close();
      const traceId = String((await delivered).traceparent).split("-")[1];
      let spans: { spanId: string; parentSpanId?: string; name: string }[] = [];
      for (const deadline = Date.now() + 10_000; spans.length < 2;) {
        assert.ok(Date.now() < deadline, `the delivery's spans: ${JSON.stringify(spans)}`);
        spans = (await watcher.call("engine::traces::get", { trace_id: traceId })).result.spans;
        if (spans.length < 2) await new Promise((r) => setTimeout(r, 20));
      }
      const ids = new Set(spans.map((s) => s.spanId));
      const byName = new Map(spans.map((s) => [s.name, s]));
      assert.equal(byName.get("watch::traced")?.parentSpanId, undefined, "the delivery is a root");
      assert.equal(
        byName.get("engine::health::check")?.parentSpanId,
        byName.get("watch::traced")?.spanId,
        "the function's call is under the delivery",
      );
      for (const s of spans) {
        assert.ok(s.parentSpanId === undefined || ids.has(s.parentSpanId), `${s.name}'s parent`);
      }
    } finally {
      await watcher.close();
    }
  }));

Deno.test("the engine's trigger types declare JSON Schemas of their config and of their calls' payload", () =>
  withEngine(async (url) => {
    const w = await RawWorker.connect(url);
    try {
      const info = async (id: string) =>
        (await w.call("engine::triggers::info", { id })).result.triggers[0] as Frame;
      // The payload's members are those the deliveries send (log_trigger.ts logRecord, …).
      const record = logRecord({ time: 1, level: "info", source: "engine", message: "m" });
      const cases: [string, string[], string[]][] = [
        ["log", ["level"], Object.keys(record)],
        ["engine::workers-available", [], ["event", "worker_id", "worker_name"]],
        ["engine::functions-available", ["include_internal"], ["event", "functions"]],
        ["engine::events", ["kinds", "level", "worker", "buffer"], ["events", "dropped"]],
      ];
      for (const [id, config, call] of cases) {
        const type = await info(id);
        const request = type.trigger_request_format;
        assert.equal(request?.type, "object", `${id}: a config schema`);
        assert.deepEqual(Object.keys(request.properties ?? {}), config, `${id}: config fields`);
        assert.equal(request.required, undefined, `${id}: every config field is optional`);
        assert.deepEqual(type.call_request_format?.required, call, `${id}: the payload's members`);
      }
      const level = (await info("log")).trigger_request_format.properties.level;
      assert.deepEqual(level.enum, ["all", "debug", "info", "warn", "error"]);
    } finally {
      await w.close();
    }
  }));

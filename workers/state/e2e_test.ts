/**
 * The state worker inside a real engine, called by real worker processes over
 * WebSocket: functions, bad input, the `state` trigger type, durability under
 * `kill -9`, and two engines sharing one Redis.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LogEntry } from "../../engine/api.ts";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import { registerWorker, type Worker } from "../../sdk/typescript/mod.ts";
import { startRedisServer } from "../../tests/support/redis_server.ts";
import { SqliteStore } from "./adapters/sqlite.ts";
import { SdkWorkerProcess, startEngineProcess, startIiiSdkWorker } from "./_processes.ts";
import { stateWorker } from "./mod.ts";

interface Harness {
  engine: RunningEngine;
  worker: SdkWorkerProcess;
  dir: string;
  /** Resolves with the first log entry `match` accepts. */
  logged(match: (entry: LogEntry) => boolean): Promise<LogEntry>;
}

/** An engine with the state worker (default config, in a temp folder) and an SDK worker process. */
async function withEngine(run: (h: Harness) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "state-e2e-" });
  const watchers: { match(entry: LogEntry): boolean; resolve(entry: LogEntry): void }[] = [];
  const engine = await startEngine({
    port: 0,
    baseDir: dir,
    builtins: [{ worker: stateWorker, config: stateWorker.parseConfig(stateWorker.defaultConfig) }],
    logSink: (entry) => {
      for (const watcher of watchers.filter((w) => w.match(entry))) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(entry);
      }
    },
  });
  let worker: SdkWorkerProcess | undefined;
  try {
    worker = await SdkWorkerProcess.start(engine.url);
    const logged = (match: (entry: LogEntry) => boolean) =>
      new Promise<LogEntry>((resolve) => watchers.push({ match, resolve }));
    await run({ engine, worker, dir, logged });
  } finally {
    await worker?.stop();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The trigger `id` as the engine lists it, once its provider has answered (it is no longer
 * `pending`): the provider answers asynchronously, and a list call can arrive before it does
 * (with ENGINE_TRANSPORT=native, both frames can come in one read and be handled in one turn).
 */
async function triggerStatus(worker: SdkWorkerProcess, id: string) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const { result } = await worker.call("engine::registered-triggers::list", {});
    const list =
      (result as { registered_triggers: { id: string; status: string; error: unknown }[] })
        .registered_triggers;
    const found = list.find((t) => t.id === id);
    if (found?.status !== "pending" || Date.now() > deadline) return found;
  }
}

Deno.test("state::set and state::get work from an SDK worker process through the engine", async () => {
  await withEngine(async ({ worker, dir }) => {
    assert.deepEqual(
      await worker.call("state::set", { scope: "users", key: "u1", value: { name: "Ada" } }),
      {
        id: 1,
        result: { old_value: null, new_value: { name: "Ada" } },
      },
    );
    assert.deepEqual((await worker.call("state::get", { scope: "users", key: "u1" })).result, {
      name: "Ada",
    });
    assert.equal((await worker.call("state::get", { scope: "users", key: "u2" })).result, null);
    const updated = await worker.call("state::update", {
      scope: "users",
      key: "u1",
      ops: [{ type: "increment", path: "visits", by: 1 }],
    });
    assert.deepEqual(updated.result, {
      old_value: { name: "Ada" },
      new_value: { name: "Ada", visits: 1 },
    });
    assert.deepEqual((await worker.call("state::list_keys", { scope: "users" })).result, [
      { key: "u1", value: { name: "Ada", visits: 1 } },
    ]);
    assert.deepEqual((await worker.call("state::list_groups", {})).result, { groups: ["users"] });
    assert.deepEqual((await worker.call("state::delete", { scope: "users", key: "u1" })).result, {
      name: "Ada",
      visits: 1,
    });
    assert.deepEqual((await worker.call("state::list", { scope: "users" })).result, []);
    // The default relative path resolves against the engine's base folder.
    assert.ok(existsSync(join(dir, "data", "state.db")));
  });
});

Deno.test("state::* refuse bad input through the engine with a clear error", async () => {
  await withEngine(async ({ worker }) => {
    const cases: [string, unknown, string, string][] = [
      [
        "state::set",
        { key: "k", value: 1 },
        "INVALID_ARGUMENT",
        '"scope" must be a non-empty string: it is missing',
      ],
      [
        "state::get",
        { scope: "s", key: "" },
        "INVALID_ARGUMENT",
        '"key" must be a non-empty string: it is empty',
      ],
      [
        "state::update",
        { scope: "s", key: "k", ops: [{ type: "square", path: "" }] },
        "INVALID_OP",
        '"ops[0].type" is "square": the known ops are "set", "merge", "increment", "decrement", "append", "remove"',
      ],
    ];
    for (const [fn, payload, code, problem] of cases) {
      const { error } = await worker.call(fn, payload);
      assert.deepEqual(error, { code, message: `Invalid input for ${fn}: ${problem}` });
    }
    const { error } = await worker.call("state::set", {
      scope: "s",
      key: "k",
      value: "x".repeat(1_048_575),
    });
    assert.deepEqual(error, {
      code: "VALUE_TOO_LARGE",
      message:
        'Value for scope "s" key "k" is 1,048,577 bytes: the limit is 1,048,576 bytes (max_value_bytes)',
    });
    assert.deepEqual((await worker.call("state::list_groups", {})).result, { groups: [] });
  });
});

Deno.test("a state trigger fires its worker function after each change it matches", async () => {
  await withEngine(async ({ worker }) => {
    const id = await worker.registerStateTrigger("e2e::on_change", { scope: "watched" });
    assert.equal((await triggerStatus(worker, id))?.status, "active");

    await worker.call("state::set", { scope: "watched", key: "a", value: 1 });
    await worker.call("state::set", { scope: "ignored", key: "a", value: 1 });
    await worker.call("state::update", {
      scope: "watched",
      key: "a",
      ops: [{ type: "increment", path: "", by: 1 }],
    });
    await worker.call("state::delete", { scope: "watched", key: "missing" });
    await worker.call("state::delete", { scope: "watched", key: "a" });

    assert.deepEqual(await worker.nextEvent(), {
      type: "state",
      event_type: "state:created",
      scope: "watched",
      key: "a",
      old_value: null,
      new_value: 1,
    });
    assert.deepEqual(await worker.nextEvent(), {
      type: "state",
      event_type: "state:updated",
      scope: "watched",
      key: "a",
      old_value: 1,
      new_value: 2,
    });
    // Neither the other scope nor the delete of a missing key produced an event.
    assert.deepEqual(await worker.nextEvent(), {
      type: "state",
      event_type: "state:deleted",
      scope: "watched",
      key: "a",
      old_value: 2,
      new_value: null,
    });
  });
});

Deno.test("a state trigger's condition function decides which events reach the handler", async () => {
  await withEngine(async ({ worker }) => {
    const id = await worker.registerStateTrigger("e2e::on_change", {
      scope: "n",
      condition_function_id: "e2e::is_even",
    });
    assert.equal((await triggerStatus(worker, id))?.status, "active");
    for (const value of [1, 2, 3, 4]) {
      await worker.call("state::set", { scope: "n", key: "k", value });
    }
    assert.deepEqual(await worker.nextEvent(), {
      type: "state",
      event_type: "state:updated",
      scope: "n",
      key: "k",
      old_value: 1,
      new_value: 2,
    });
    assert.equal((await worker.nextEvent() as { new_value: number }).new_value, 4);
  });
});

Deno.test("the published iii-sdk uses the state worker unchanged", async () => {
  await withEngine(async ({ engine }) => {
    const iii = startIiiSdkWorker(engine.url);
    try {
      const steps: Record<string, unknown> = {};
      for (;;) {
        const message = await iii.waitFor((m) => "step" in m || m.done === true);
        if (message.done === true) break;
        steps[message.step as string] = "error" in message
          ? { error: message.error }
          : message.result;
      }
      assert.deepEqual(steps, {
        set: { old_value: null, new_value: { name: "Ada" } },
        get: { name: "Ada" },
        get_missing: null,
        update: {
          old_value: { name: "Ada" },
          new_value: { name: "Ada", visits: 1 },
          errors: [{
            op_index: 1,
            code: "set.path.proto_polluted",
            message: 'Path segment "__proto__" is not allowed: it could pollute prototypes',
          }],
        },
        list: [{ name: "Ada", visits: 1 }],
        delete: { name: "Ada", visits: 1 },
        list_groups: { groups: [] },
        bad: {
          error: {
            code: "INVALID_ARGUMENT",
            // iii-sdk's InvocationError puts the code in front of the engine's message.
            message:
              'INVALID_ARGUMENT: Invalid input for state::set: "key" must be a non-empty string: it is missing',
          },
        },
        event: {
          type: "state",
          event_type: "state:created",
          scope: "iii",
          key: "u1",
          old_value: null,
          new_value: { name: "Ada" },
        },
      });
    } finally {
      await iii.close();
    }
  });
});

Deno.test("a failing state trigger handler is logged and does not affect the write", async () => {
  await withEngine(async ({ worker, logged }) => {
    const id = await worker.registerStateTrigger("e2e::fail", { scope: "s", key: "k" });
    assert.equal((await triggerStatus(worker, id))?.status, "active");
    const warning = logged((e) => e.level === "warn" && e.message.includes("e2e::fail"));
    assert.deepEqual((await worker.call("state::set", { scope: "s", key: "k", value: 1 })).result, {
      old_value: null,
      new_value: 1,
    });
    const entry = await warning;
    assert.match(
      entry.message,
      /State trigger ".+" handler "e2e::fail" failed on state:created of scope "s" key "k"/,
    );
    assert.match(entry.message, /handler exploded/);
    assert.equal((await worker.call("state::get", { scope: "s", key: "k" })).result, 1);
  });
});

Deno.test("a state trigger with a bad config is refused with a clear message", async () => {
  await withEngine(async ({ worker }) => {
    const id = await worker.registerStateTrigger("e2e::on_change", { scope: 42 });
    const status = await triggerStatus(worker, id);
    assert.equal(status?.status, "failed");
    assert.equal(status?.error, 'Invalid state trigger config: "scope" must be a non-empty string');
  });
});

Deno.test("an answered state::set survives kill -9 of the engine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "state-kill-" });
  const path = join(dir, "state.db");
  const child = await startEngineProcess({ adapter: "sqlite", path }, dir);
  const worker = registerWorker(child.url, { worker_name: "durability" });
  const answered = new Map<string, number>();
  let killed: Promise<Deno.CommandStatus> | undefined;
  try {
    await worker.ready();
    // Eight lanes keep sets in flight until some 300 are answered, then the engine is killed mid-stream.
    const lane = async (n: number) => {
      for (let i = 0; killed === undefined; i++) {
        const key = `k-${n}-${i}`;
        try {
          await worker.trigger({
            function_id: "state::set",
            payload: { scope: "durable", key, value: i },
          });
        } catch {
          return; // The engine is gone.
        }
        answered.set(key, i);
        if (answered.size >= 300 && killed === undefined) killed = child.kill("SIGKILL");
      }
    };
    const lanes = Array.from({ length: 8 }, (_, n) => lane(n));
    await Promise.race(lanes);
    const status = await killed;
    assert.equal(status?.signal, "SIGKILL");
    await worker.shutdown();
    await Promise.all(lanes);
  } finally {
    await worker.shutdown();
    await (killed ?? child.kill("SIGKILL"));
  }
  const store = SqliteStore.open({ path, maxValueBytes: 1024 });
  try {
    assert.ok(answered.size >= 300);
    const stored = new Map(store.list("durable").map((e) => [e.key, e.value]));
    for (const [key, value] of answered) {
      assert.equal(stored.get(key), value, `answered set of "${key}" was lost`);
    }
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two engines on one Redis share state, and their concurrent increments add up", async () => {
  const redis = await startRedisServer();
  const dir = await Deno.makeTempDir({ prefix: "state-redis-" });
  const config = stateWorker.parseConfig({ adapter: "redis", url: redis.url });
  const engineA = await startEngine({ port: 0, builtins: [{ worker: stateWorker, config }] });
  const engineB = await startEngineProcess({ adapter: "redis", url: redis.url }, dir);
  const workers: Worker[] = [];
  try {
    const a = registerWorker(engineA.url, { worker_name: "a" });
    const b = registerWorker(engineB.url, { worker_name: "b" });
    workers.push(a, b);
    await Promise.all([a.ready(), b.ready()]);

    await a.trigger({
      function_id: "state::set",
      payload: { scope: "shared", key: "greeting", value: "hello" },
    });
    assert.equal(
      await b.trigger({ function_id: "state::get", payload: { scope: "shared", key: "greeting" } }),
      "hello",
    );

    const increment = {
      scope: "shared",
      key: "count",
      ops: [{ type: "increment", path: "n", by: 1 }],
    };
    await Promise.all(
      Array.from(
        { length: 100 },
        (_, i) =>
          (i % 2 === 0 ? a : b).trigger({ function_id: "state::update", payload: increment }),
      ),
    );
    assert.deepEqual(
      await a.trigger({ function_id: "state::get", payload: { scope: "shared", key: "count" } }),
      { n: 100 },
    );
    assert.deepEqual(await b.trigger({ function_id: "state::list_groups", payload: {} }), {
      groups: ["shared"],
    });
  } finally {
    for (const worker of workers) await worker.shutdown();
    await engineB.kill("SIGTERM");
    await engineA.stop();
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

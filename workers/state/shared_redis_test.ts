/**
 * Engines sharing one Redis for their state, each a real process
 * (`main.ts`) with its own worker process: state triggers, atomic updates
 * racing from three engines, and lists read while another engine writes.
 */

import assert from "node:assert/strict";
import type { EngineProcess } from "../../tests/support/engine_process.ts";
import { type RedisServer, startRedisServer } from "../../tests/support/redis_server.ts";
import { SdkWorkerProcess, startEngineProcess } from "./_processes.ts";

/** `count` engines with engine-state on one new Redis, each with an SDK worker process. */
async function withEngines(
  count: number,
  body: (workers: SdkWorkerProcess[], redis: RedisServer) => Promise<void>,
): Promise<void> {
  const redis = await startRedisServer();
  const dirs: string[] = [];
  const engines: EngineProcess[] = [];
  const workers: SdkWorkerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const dir = await Deno.makeTempDir({ prefix: "state-shared-" });
      dirs.push(dir);
      engines.push(await startEngineProcess({ adapter: "redis", url: redis.url }, dir));
    }
    for (const engine of engines) workers.push(await SdkWorkerProcess.start(engine.url));
    await body(workers, redis);
  } finally {
    for (const worker of workers) await worker.stop();
    for (const engine of engines) await engine.stop("SIGKILL");
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    await redis.stop();
  }
}

/** The result of a call, failing the test on an error. */
async function resultOf(worker: SdkWorkerProcess, id: string, payload: unknown): Promise<unknown> {
  const answer = await worker.call(id, payload);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return answer.result;
}

Deno.test("a state trigger registered on engine B fires for writes through B, not through engine A", async () => {
  await withEngines(2, async ([a, b]) => {
    await b!.registerStateTrigger("e2e::on_change", { scope: "watched" });
    // B's own write fires: the trigger is in place.
    await resultOf(b!, "state::set", { scope: "watched", key: "b1", value: 1 });
    assert.equal((await b!.nextEvent() as { key: string }).key, "b1");
    // A's write is stored (B reads it) but fires nothing on B: events stay on the engine that wrote.
    await resultOf(a!, "state::set", { scope: "watched", key: "a1", value: 2 });
    assert.equal(await resultOf(b!, "state::get", { scope: "watched", key: "a1" }), 2);
    await resultOf(b!, "state::set", { scope: "watched", key: "b2", value: 3 });
    assert.equal((await b!.nextEvent() as { key: string }).key, "b2");
  });
});

Deno.test("state::update racing from three engines on one key: every op lands once", async () => {
  await withEngines(3, async (workers) => {
    const perEngine = 40;
    await Promise.all(
      workers.flatMap((worker, e) =>
        Array.from({ length: perEngine }, (_, i) =>
          resultOf(worker, "state::update", {
            scope: "race",
            key: "k",
            ops: [
              { type: "increment", path: "n", by: 1 },
              // An object, not a string: appending a string to a missing field makes a string.
              { type: "append", path: "seen", value: { by: `${e}-${i}` } },
            ],
          }))
      ),
    );
    const value = await resultOf(workers[0]!, "state::get", { scope: "race", key: "k" }) as {
      n: number;
      seen: { by: string }[];
    };
    assert.equal(value.n, 3 * perEngine);
    assert.equal(value.seen.length, 3 * perEngine);
    assert.equal(new Set(value.seen.map((s) => s.by)).size, 3 * perEngine);
  });
});

Deno.test("lists read on engine B while engine A writes are each a consistent, sorted snapshot", async () => {
  await withEngines(2, async ([a, b]) => {
    const total = 150;
    const keyOf = (i: number) => `k${String(i).padStart(3, "0")}`;
    let writing = true;
    const writes = (async () => {
      // Each key's value names its key; every tenth write makes a new scope too.
      for (let i = 0; i < total; i++) {
        await resultOf(a!, "state::set", { scope: "listed", key: keyOf(i), value: keyOf(i) });
        if (i % 10 === 0) await resultOf(a!, "state::set", { scope: `g${i}`, key: "x", value: i });
      }
    })().finally(() => writing = false);
    let lastKeys = 0;
    let lastGroups = 0;
    let reads = 0;
    while (writing || reads === 0) {
      reads++;
      const entries = await resultOf(b!, "state::list_keys", { scope: "listed" }) as {
        key: string;
        value: string;
      }[];
      const keys = entries.map((e) => e.key);
      // Keys are written in order, so a snapshot holds a prefix of them, sorted.
      assert.deepEqual(keys, Array.from({ length: keys.length }, (_, i) => keyOf(i)));
      assert.ok(entries.every((e) => e.value === e.key));
      assert.ok(keys.length >= lastKeys, "a later list lost keys");
      lastKeys = keys.length;
      const { groups } = await resultOf(b!, "state::list_groups", {}) as { groups: string[] };
      assert.equal(new Set(groups).size, groups.length, "a scope listed twice");
      assert.deepEqual(groups, [...groups].sort());
      assert.ok(groups.length >= lastGroups, "a later list_groups lost scopes");
      lastGroups = groups.length;
    }
    await writes;
    assert.equal(
      (await resultOf(b!, "state::list", { scope: "listed" }) as unknown[]).length,
      total,
    );
  });
});

/**
 * engine-state and engine-queue on SQLite files that are shared or tampered
 * with, each engine a real process (`main.ts`) with worker processes on the
 * TypeScript SDK: two engines on the same files, a file deleted or replaced
 * while an engine has it open.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type EngineProcess, spawnEngine } from "../../tests/support/engine_process.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { type Message, SdkProcess } from "../queue/_sdk_process.ts";

/** What a test gets: a folder for the files, and engines and workers stopped at its end. */
interface Files {
  dir: string;
  /** An engine process with engine-state on `dir/state.db` and engine-queue on `dir/queue.db`. */
  engine(): Promise<EngineProcess>;
  /** A worker process connected to `engine`; a consumer registers the `queue-e2e::*` functions. */
  worker(engine: EngineProcess, consumer?: boolean): Promise<SdkProcess>;
}

async function withFiles(body: (f: Files) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sqlite-files-" });
  const engines: EngineProcess[] = [];
  const workers: SdkProcess[] = [];
  try {
    await body({
      dir,
      async engine() {
        // Each engine its own config file, both naming the same database files.
        const config = join(dir, `engine-${engines.length}.yaml`);
        await Deno.writeTextFile(
          config,
          storeEngineConfig({
            state: { path: join(dir, "state.db") },
            queue: { path: join(dir, "queue.db"), default_queue: { backoff_ms: 50 } },
          }),
        );
        const engine = await spawnEngine({ config });
        engines.push(engine);
        await engine.waitForLine(/Started worker engine-queue/);
        return engine;
      },
      async worker(engine, consumer = false) {
        const worker = await SdkProcess.start(engine.url, consumer);
        workers.push(worker);
        return worker;
      },
    });
  } finally {
    for (const worker of workers) await worker.stop();
    for (const engine of engines) await engine.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
}

/** The result of a call; fails the test on an error. */
function resultOf(answer: Message): unknown {
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return answer.result;
}

Deno.test("two engines on the same SQLite files: 800 increments of one key all land, 800 messages are each delivered once", async () => {
  await withFiles(async ({ engine, worker }) => {
    const a = await engine();
    const b = await engine();
    const consumers = [await worker(a, true), await worker(b, true)];
    const producers = [await worker(a), await worker(b)];
    const n = 800;
    const counts = new Map<number, number>();
    const all = Promise.withResolvers<void>();
    let reported = 0;
    for (const consumer of consumers) {
      (async () => {
        for (;;) {
          const { n: m } = await consumer.report("delivered", () => true, 60_000) as { n: number };
          counts.set(m, (counts.get(m) ?? 0) + 1);
          if (++reported === n) all.resolve();
        }
      })().catch(() => {/* the consumer stopped at the end of the test */});
    }
    const increment = { type: "increment", path: "count", by: 1 };
    await Promise.all(Array.from({ length: n }, async (_, m) => {
      const producer = producers[m % 2]!;
      resultOf(await producer.enqueue("shared", "queue-e2e::record", { n: m }));
      resultOf(
        await producer.send({
          op: "call",
          function_id: "state::update",
          payload: { scope: "shared", key: "counter", ops: [increment] },
        }),
      );
    }));
    for (const producer of producers) {
      assert.deepEqual(
        await producer.call("state::get", { scope: "shared", key: "counter" }),
        { count: n },
      );
    }
    await all.promise;
    assert.equal(counts.size, n);
    assert.deepEqual([...counts].filter(([, count]) => count > 1), [], "delivered twice");
  });
});

Deno.test("a SQLite file deleted or replaced while the engine has it open: writes fail naming the file, nothing is answered as stored", async () => {
  await withFiles(async ({ dir, engine, worker }) => {
    const e = await engine();
    const producer = await worker(e);
    const set = (key: string) =>
      producer.send({
        op: "call",
        function_id: "state::set",
        payload: { scope: "s", key, value: 1 },
      });
    resultOf(await set("before"));
    resultOf(await producer.enqueue("jobs", "nobody::here", { n: 1 }));

    const state = join(dir, "state.db");
    await Deno.remove(state);
    assert.deepEqual((await set("after")).error, {
      code: "SET_ERROR",
      message: `Cannot write scope "s" key "after": the state database "${state}" was deleted ` +
        "while the engine had it open: writes are refused, as they would be lost with it; " +
        "restart the engine to create a new one",
    });
    // Logged once for the outage, not per call (see sqlite_outage.ts).
    await e.waitForLine(
      /ERROR \[engine-state\] Writes to the state database fail: the state database ".*" was deleted/,
    );

    // A restore that renames another file over the open one.
    const queue = join(dir, "queue.db");
    await Deno.writeTextFile(join(dir, "restored.db"), "not a database");
    await Deno.rename(join(dir, "restored.db"), queue);
    assert.deepEqual((await producer.enqueue("jobs", "nobody::here", { n: 2 })).error, {
      code: "enqueue_error",
      message: `Cannot store a message in queue "jobs": the queue database "${queue}" was ` +
        "replaced by another file while the engine had it open: writes are refused, as they " +
        "would be lost with it; restart the engine to open the file now there",
    });
  });
});

/**
 * The engine killed with SIGKILL under load and restarted: workers come
 * back by themselves, every state::set answered before the kill is still
 * there, and every message accepted before the kill is delivered.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { eventually } from "../support/local_worker.ts";
import { freePort } from "../support/ports.ts";
import { storeEngineConfig } from "../support/store_engine.ts";

function lines(w: WorkerProcess, prefix: string): string[] {
  return w.output.join("").split("\n").filter((l) => l.startsWith(prefix));
}

Deno.test("engine SIGKILL under load: answered sets survive, accepted messages are delivered, workers re-register", async () => {
  const { dir, file: config } = await tempConfig(storeEngineConfig({
    state: { path: "./state.db" },
    queue: {
      path: "./queue.db",
      queues: {
        jobs: { concurrency: 16, max_attempts: 20, backoff_ms: 100, visibility_timeout_ms: 2000 },
      },
    },
  }, freePort()));
  let engine = await spawnEngine({ config, cwd: dir });
  const env = { ENGINE_URL: engine.url };
  const consumer = await spawnWorker("tests/fixtures/faults/consumer_worker.ts", env);
  const producer = await spawnWorker("tests/fixtures/faults/load_worker.ts", env);
  try {
    await eventually(
      () => lines(producer, "set ").length >= 200 && lines(producer, "enq ").length >= 100,
      "load before the kill",
      30_000,
    );
    assert.equal(await engine.stop("SIGKILL"), 137);
    const before = lines(producer, "set ").length + lines(producer, "enq ").length;

    engine = await spawnEngine({ config, cwd: dir });
    await eventually(
      () => lines(producer, "set ").length + lines(producer, "enq ").length > before + 100,
      "the producer to reconnect and carry on",
      30_000,
    );
    const stopped = await producer.stop("SIGTERM");
    assert.equal(stopped.code, 0);

    const sets = lines(producer, "set ").map((l) => l.split(" "));
    const enqueued = new Set(lines(producer, "enq ").map((l) => Number(l.split(" ")[1])));
    const caller = await RawWorker.connect(engine.url);
    try {
      await waitForFunctions(caller, ["faults::consume", "state::set"]);
      const stored = (await caller.call("state::list_keys", { scope: "load" })).result as {
        key: string;
        value: number;
      }[];
      const byKey = new Map(stored.map((e) => [e.key, e.value]));
      const lost = sets.filter(([, key, value]) => byKey.get(key!) !== Number(value));
      assert.deepEqual(lost, [], `every answered set survives (${sets.length} answered)`);

      const delivered = () => new Set(lines(consumer, "got ").map((l) => Number(l.split(" ")[1])));
      await eventually(
        () => [...enqueued].every((i) => delivered().has(i)),
        "every accepted message to be delivered",
        60_000,
      );
      console.log(
        `${sets.length} answered sets kept, ${enqueued.size} accepted messages delivered across a SIGKILL`,
      );
    } finally {
      await caller.close();
    }
  } finally {
    await producer.stop("SIGKILL");
    await consumer.stop();
    await engine.stop();
  }
});

/**
 * Redis stopped and started again under two engines that share it for state
 * and queues (each a real process): both recover without a restart.
 */

import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { type RedisServer, startRedisServer } from "../../tests/support/redis_server.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { SdkProcess } from "../queue/_sdk_process.ts";

Deno.test("Redis restarted under two engines sharing it: state and queues work again on both", async () => {
  let redis: RedisServer = await startRedisServer();
  const engines: EngineProcess[] = [];
  const workers: SdkProcess[] = [];
  const dirs: string[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const { dir, file } = await tempConfig(storeEngineConfig({
        state: { adapter: "redis", url: redis.url },
        queue: {
          adapter: "redis",
          url: redis.url,
          default_queue: { backoff_ms: 50, max_backoff_ms: 100 },
        },
      }));
      dirs.push(dir);
      const engine = await spawnEngine({ config: file });
      engines.push(engine);
      await engine.waitForLine(/Started worker engine-queue/);
    }
    const [a, b] = engines as [EngineProcess, EngineProcess];
    const onA = await SdkProcess.start(a.url);
    workers.push(onA);
    const consumerB = await SdkProcess.start(b.url, true);
    workers.push(consumerB);
    const set = (value: number) =>
      onA.send({
        op: "call",
        function_id: "state::set",
        payload: { scope: "s", key: "k", value },
      });
    assert.equal((await set(1)).error, undefined);
    await onA.enqueue("before", "queue-e2e::record", { n: 1 });
    assert.deepEqual(await consumerB.report("delivered"), { n: 1 });

    await redis.stop();
    assert.equal(((await set(2)).error as { code: string }).code, "SET_ERROR");
    // Without persistence the new server starts empty: the queues and state are made anew.
    redis = await startRedisServer({ port: redis.port });
    // Both engines' workers serve again (ioredis reconnects with a backoff: under load, B's
    // workers may still be waiting when A's can write again). A worker whose connection came back
    // before any of its commands failed logs no outage at all, so this asks rather than waits for
    // log lines.
    await eventually(async () => (await set(3)).error === undefined, "state::set on A", 20_000);
    await eventually(
      async () => await consumerB.call("state::get", { scope: "s", key: "k" }).catch(() => 0) === 3,
      "state::get on B",
      20_000,
    );
    let receipt = await onA.enqueue("after", "queue-e2e::record", { n: 2 });
    // A refused enqueue stored nothing (the store was unreachable before it was sent).
    await eventually(
      async () => {
        if (receipt.error === undefined) return true;
        receipt = await onA.enqueue("after", "queue-e2e::record", { n: 2 });
        return false;
      },
      `enqueue on A (${JSON.stringify(receipt.error)})`,
      20_000,
    );
    // Under load (the whole suite on 2 cores, or six copies of this test at once) the message
    // waited up to 27 s, close to the 30 s lease (visibility_timeout_ms) of a claim whose outcome
    // was not recorded: an open question (see the session notes); within 40 s it always came.
    assert.deepEqual(await consumerB.report("delivered", () => true, 40_000), { n: 2 });
  } finally {
    for (const worker of workers) await worker.stop();
    for (const engine of engines) await engine.stop("SIGKILL");
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    await redis.stop();
  }
});

/**
 * Engines sharing one Redis for their queues, each a real process
 * (`main.ts`) with its own worker processes: which engine delivers what,
 * `kill -9` of one engine mid-delivery, dead letters made on one engine and
 * managed from another.
 */

import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";
import { type RedisServer, startRedisServer } from "../../tests/support/redis_server.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { type Message, SdkProcess } from "./_sdk_process.ts";

/** What a test gets: the Redis, and helpers that start engines and workers stopped at its end. */
interface Shared {
  redis: RedisServer;
  /** An engine process with engine-queue on the shared Redis and `extra` config fields. */
  engine(extra?: Record<string, unknown>): Promise<EngineProcess>;
  /** A worker process connected to `engine`; a consumer registers the `queue-e2e::*` functions. */
  worker(engine: EngineProcess, consumer?: boolean): Promise<SdkProcess>;
}

/** Quick retries and a short lease, so a dead engine's message comes back in seconds. */
const QUICK = { backoff_ms: 50, max_backoff_ms: 100, visibility_timeout_ms: 1500 };

async function withSharedRedis(body: (s: Shared) => Promise<void>): Promise<void> {
  const redis = await startRedisServer();
  const engines: EngineProcess[] = [];
  const workers: SdkProcess[] = [];
  const dirs: string[] = [];
  try {
    await body({
      redis,
      async engine(extra = {}) {
        const { dir, file } = await tempConfig(storeEngineConfig({
          queue: { adapter: "redis", url: redis.url, default_queue: QUICK, ...extra },
        }));
        dirs.push(dir);
        const engine = await spawnEngine({ config: file });
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
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    await redis.stop();
  }
}

/** The receipt id of an enqueue's answer; fails the test on an error. */
function receiptOf(answer: Message): string {
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  return (answer.result as { messageReceiptId: string }).messageReceiptId;
}

Deno.test("a queue first used on engine A after engine B started is delivered by B's consumer", async () => {
  await withSharedRedis(async ({ engine, worker }) => {
    const a = await engine();
    const b = await engine();
    const producer = await worker(a);
    const consumer = await worker(b, true);
    // "fresh" is in no config and in no store when B starts: A creates it on first use.
    receiptOf(await producer.enqueue("fresh", "queue-e2e::record", { n: 1 }));
    assert.deepEqual(await consumer.report("delivered", () => true, 10_000), { n: 1 });
  });
});

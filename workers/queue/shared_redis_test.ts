/**
 * Engines sharing one Redis for their queues, each a real process
 * (`main.ts`) with its own worker processes: which engine delivers what,
 * `kill -9` of one engine mid-delivery, dead letters made on one engine and
 * managed from another, and settings that differ between engines.
 */

import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";
import { eventually } from "../../tests/support/local_worker.ts";
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

/**
 * Every `delivered` report of `consumers`, counted by the message's `n`; `all`
 * resolves once each of `expected` was delivered at least once.
 */
function countDeliveries(consumers: SdkProcess[], expected: number[]) {
  const counts = new Map<number, number>();
  const all = Promise.withResolvers<void>();
  let done = false;
  for (const consumer of consumers) {
    (async () => {
      for (;;) {
        const { n } = await consumer.report("delivered") as { n: number };
        counts.set(n, (counts.get(n) ?? 0) + 1);
        if (!done && expected.every((e) => counts.has(e))) {
          done = true;
          all.resolve();
        }
      }
    })().catch((error) => {
      // Stopping the consumer at the end of the test ends its last wait.
      if (!done) all.reject(error);
    });
  }
  return { counts, all: all.promise };
}

Deno.test("two engines enqueueing to one queue at once, consumers on both: each message is delivered once", async () => {
  await withSharedRedis(async ({ engine, worker }) => {
    const a = await engine();
    const b = await engine();
    const consumers = [await worker(a, true), await worker(b, true)];
    const producers = [await worker(a), await worker(b)];
    const perProducer = 100;
    const expected = Array.from({ length: 2 * perProducer }, (_, n) => n);
    const { counts, all } = countDeliveries(consumers, expected);
    const receipts = await Promise.all(
      expected.map((n) =>
        producers[n % 2]!.enqueue("shared", "queue-e2e::record", { n }).then(receiptOf)
      ),
    );
    assert.equal(new Set(receipts).size, expected.length);
    await all;
    const twice = [...counts].filter(([, count]) => count > 1);
    assert.deepEqual(twice, [], "messages delivered more than once");
    // Every message is acknowledged: nothing is left live or in flight on either engine (the
    // last acknowledgement may still be on its way when its delivery has been reported).
    for (const producer of producers) {
      let seen: unknown;
      await eventually(
        async () => {
          const { queues } = await producer.call("engine::queue::list", {}) as {
            queues: { name: string; depth: number; in_flight: number }[];
          };
          const shared = queues.find((q) => q.name === "shared");
          seen = [shared?.depth, shared?.in_flight];
          return shared?.depth === 0 && shared?.in_flight === 0;
        },
        "the shared queue to be empty",
        10_000,
      ).catch((e) => {
        throw new Error(`${(e as Error).message}: depth and in flight ${JSON.stringify(seen)}`);
      });
    }
  });
});

Deno.test("engine A killed with SIGKILL mid-delivery: engine B delivers the message once A's lease ends", async () => {
  await withSharedRedis(async ({ engine, worker }) => {
    const a = await engine();
    const b = await engine();
    const consumerA = await worker(a, true);
    const producer = await worker(a);
    const receipt = receiptOf(await producer.enqueue("jobs", "queue-e2e::gate", { n: 7 }));
    // A's consumer holds the delivery (its gate is shut): A has claimed the message.
    assert.deepEqual(await consumerA.report("gated"), { n: 7 });
    const consumerB = await worker(b, true);
    assert.equal((await a.kill("SIGKILL")).signal, "SIGKILL");
    // The lease (visibility_timeout_ms 1500 + 1000) ends and B claims and delivers it.
    assert.deepEqual(await consumerB.report("gated", () => true, 15_000), { n: 7 });
    await consumerB.send({ op: "open_gate" });
    const { dead_letters: dead } = await consumerB.call("engine::queue::dead_letters", {
      queue: "jobs",
    }) as { dead_letters: unknown[] };
    assert.deepEqual(dead, []);
    await eventually(async () => {
      const { queues } = await consumerB.call("engine::queue::list", {}) as {
        queues: { name: string; depth: number; in_flight: number }[];
      };
      const jobs = queues.find((q) => q.name === "jobs");
      return jobs?.depth === 0 && jobs.in_flight === 0;
    }, `message "${receipt}" acknowledged by engine B`);
  });
});

Deno.test("a dead letter made on engine A is listed, redriven and discarded from engine B; the redrive reaches A's consumer", async () => {
  await withSharedRedis(async ({ engine, worker }) => {
    const config = { queues: { fragile: { max_attempts: 2 } } };
    const a = await engine(config);
    const b = await engine(config);
    const consumerA = await worker(a, true);
    const producerA = await worker(a);
    const operatorB = await worker(b);
    const one = receiptOf(await producerA.enqueue("fragile", "queue-e2e::fail", { n: 1 }));
    const two = receiptOf(await producerA.enqueue("fragile", "queue-e2e::fail", { n: 2 }));
    for (const n of [1, 2]) {
      await consumerA.report("failed", (f) => (f.data as { n: number }).n === n && f.attempt === 2);
    }
    type Page = { total: number; dead_letters: { id: string; attempts: number }[] };
    let page: Page | undefined;
    await eventually(async () => {
      page = await operatorB.call("engine::queue::dead_letters", { queue: "fragile" }) as Page;
      return page.total === 2;
    }, "both dead letters listed on engine B");
    assert.deepEqual(
      page!.dead_letters.map((d) => [d.id, d.attempts]).sort(),
      [
        [one, 2],
        [two, 2],
      ].sort(),
    );

    assert.deepEqual(
      await operatorB.call("engine::queue::discard", { queue: "fragile", id: two }),
      { queue: "fragile", id: two, discarded: true },
    );
    await consumerA.send({ op: "heal" });
    assert.deepEqual(
      await operatorB.call("engine::queue::redrive", { queue: "fragile", id: one }),
      { queue: "fragile", redriven: 1 },
    );
    assert.deepEqual(await consumerA.report("delivered", () => true, 10_000), { n: 1 });
    const onA = await producerA.call("engine::queue::dead_letters", { queue: "fragile" }) as Page;
    assert.equal(onA.total, 0);
  });
});

Deno.test("engines with different settings for one queue: the engine that delivers applies its own", async () => {
  await withSharedRedis(async ({ engine, worker }) => {
    const a = await engine({ queues: { mixed: { max_attempts: 1 } } });
    const b = await engine({ queues: { mixed: { max_attempts: 3 } } });
    const producerA = await worker(a);
    // Only B's consumer provides the function, so B makes every delivery, with max_attempts 3.
    const consumerB = await worker(b, true);
    const id = receiptOf(await producerA.enqueue("mixed", "queue-e2e::fail", { n: 1 }));
    for (const attempt of [1, 2, 3]) {
      await consumerB.report("failed", (f) => f.attempt === attempt, 10_000);
    }
    type Page = { total: number; dead_letters: { id: string; attempts: number }[] };
    let page: Page | undefined;
    await eventually(async () => {
      page = await producerA.call("engine::queue::dead_letters", { queue: "mixed" }) as Page;
      // The count and the page are one snapshot (they agree): wait for the letter on both.
      return page.total === 1 && page.dead_letters.length === 1;
    }, "the dead letter listed on engine A");
    assert.deepEqual(page!.dead_letters.map((d) => [d.id, d.attempts]), [[id, 3]]);
    // Each engine lists the queue with its own settings.
    const settingsOn = async (p: SdkProcess) => {
      const { queues } = await p.call("engine::queue::list", {}) as {
        queues: { name: string; settings: { max_attempts: number } }[];
      };
      return queues.find((q) => q.name === "mixed")?.settings.max_attempts;
    };
    assert.deepEqual([await settingsOn(producerA), await settingsOn(consumerB)], [1, 3]);
  });
});

/**
 * engine-queue's documented delivery semantics (workers/queue/README.md,
 * "Delivery") checked with real processes on SQLite and on a real
 * redis-server: an engine process (`main.ts`), producers on the npm
 * iii-sdk@0.22.1 (`TriggerAction.Enqueue`) and consumers on our TypeScript
 * SDK (`tests/fixtures/queue/sdk_worker.ts`). What other tests cover already
 * is not repeated here (see workers/queue/e2e_test.ts, shared_redis_test.ts,
 * tests/e2e/queue_reload_test.ts, engine_kill_test.ts).
 */
import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { JsonLineProcess } from "../support/json_line_process.ts";
import { eventually } from "../support/local_worker.ts";
import { type RedisServer, startRedisServer } from "../support/redis_server.ts";
import { storeEngineConfig } from "../support/store_engine.ts";
import { type Message, SdkProcess } from "../../workers/queue/_sdk_process.ts";

const ADAPTERS = ["sqlite", "redis"] as const;
type Adapter = typeof ADAPTERS[number];

const QUEUES = {
  // Retries: 100, 200, then 300 (the ceiling) ms; dead after 4 deliveries.
  retried: { max_attempts: 4, backoff_ms: 100, max_backoff_ms: 300 },
  // One at a time: the order the README promises.
  single: { concurrency: 1, backoff_ms: 100 },
  narrow: { concurrency: 2 },
};
const DEFAULTS = { backoff_ms: 100, max_backoff_ms: 200, visibility_timeout_ms: 1500 };

/** A producer process on the npm iii-sdk. */
class IiiProducer {
  #next = 0;
  private constructor(readonly process: JsonLineProcess) {}

  static async start(url: string): Promise<IiiProducer> {
    const process = new JsonLineProcess(
      new URL("../fixtures/queue/iii_producer.ts", import.meta.url),
      [url],
    );
    await process.waitFor((m) => m.ready === true, { description: "the iii producer's ready" });
    return new IiiProducer(process);
  }

  async #send(command: Message): Promise<unknown> {
    const id = ++this.#next;
    const answer = this.process.waitFor((m) => m.id === id, {
      description: `the answer to ${JSON.stringify(command)}`,
    });
    await this.process.send({ id, ...command });
    const { result, error } = await answer;
    if (error !== undefined) throw new Error(JSON.stringify(error));
    return result;
  }

  /** Enqueues with TriggerAction.Enqueue; resolves with the receipt id. */
  async enqueue(queue: string, functionId: string, payload: unknown): Promise<string> {
    const result = await this.#send({ op: "enqueue", queue, function_id: functionId, payload });
    return (result as { messageReceiptId: string }).messageReceiptId;
  }

  async call(functionId: string, payload: unknown = {}): Promise<Message> {
    return await this.#send({ op: "call", function_id: functionId, payload }) as Message;
  }

  stop(): Promise<Deno.CommandStatus> {
    return this.process.close();
  }
}

interface System {
  engine: EngineProcess;
  producer: IiiProducer;
  /** A consumer process (the `queue-e2e::*` functions) on the current engine. */
  consumer(): Promise<SdkProcess>;
  /** Kills the engine with SIGKILL. */
  kill(): Promise<void>;
  /** Starts the engine again on the same store, with a new producer. */
  restart(): Promise<void>;
}

async function withSystem(adapter: Adapter, body: (s: System) => Promise<void>): Promise<void> {
  let redis: RedisServer | undefined;
  if (adapter === "redis") redis = await startRedisServer();
  const store = redis === undefined ? { path: "./queue.db" } : { adapter, url: redis.url };
  const { dir, file } = await tempConfig(
    storeEngineConfig({ queue: { ...store, default_queue: DEFAULTS, queues: QUEUES } }),
  );
  const consumers: SdkProcess[] = [];
  const start = async () => {
    const engine = await spawnEngine({ config: file, cwd: dir });
    await engine.waitForLine(/Started worker engine-queue/);
    return engine;
  };
  const system = { engine: await start() } as System;
  try {
    system.producer = await IiiProducer.start(system.engine.url);
    system.consumer = async () => {
      const consumer = await SdkProcess.start(system.engine.url, true);
      consumers.push(consumer);
      return consumer;
    };
    system.kill = async () => {
      assert.equal(await system.engine.stop("SIGKILL"), 137);
      await system.producer.stop();
    };
    system.restart = async () => {
      system.engine = await start();
      system.producer = await IiiProducer.start(system.engine.url);
    };
    await body(system);
  } finally {
    for (const consumer of consumers) await consumer.process.kill("SIGKILL");
    await system.producer?.stop();
    await system.engine.stop("SIGKILL");
    await redis?.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

interface QueueRow {
  name: string;
  depth: number;
  in_flight: number;
  dead_letters: number;
}

/** Waits until `queue` holds nothing live (ready, waiting or in flight); its row. */
async function drained(producer: IiiProducer, queue: string): Promise<QueueRow> {
  let row: QueueRow | undefined;
  await eventually(async () => {
    const { queues } = await producer.call("engine::queue::list") as { queues: QueueRow[] };
    row = queues.find((q) => q.name === queue);
    return row?.depth === 0 && row.in_flight === 0;
  }, `queue "${queue}" to be drained`);
  return row!;
}

/** The `n` of the next `count` deliveries of `queue-e2e::record`, in delivery order. */
async function delivered(consumer: SdkProcess, count: number): Promise<number[]> {
  const seen: number[] = [];
  while (seen.length < count) seen.push((await consumer.report("delivered")).n as number);
  return seen;
}

/** The next millisecond: messages enqueued after it are due after those enqueued before. */
function nextMillisecond(): void {
  const now = Date.now();
  while (Date.now() <= now) {
    // Busy for under a millisecond.
  }
}

for (const adapter of ADAPTERS) {
  Deno.test(`[${adapter}] a failing message is retried after growing delays up to the ceiling, then listed, redriven and discarded as a dead letter`, async () => {
    await withSystem(adapter, async ({ producer, consumer: start }) => {
      const consumer = await start();
      const receipt = await producer.enqueue("retried", "queue-e2e::fail", { n: 1 });
      const starts: number[] = [];
      for (let attempt = 1; attempt <= 4; attempt++) {
        const failed = await consumer.report("failed", (f) => f.attempt === attempt);
        starts.push(failed.at as number);
      }
      // Each retry comes no sooner than its delay (100, 200, then the 300 ceiling): lower
      // bounds only, the machine is shared.
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      [100, 200, 300].forEach((floor, i) =>
        assert.ok(gaps[i]! >= floor, `retry ${i + 1} after ${gaps[i]} ms, at least ${floor}`)
      );
      const row = await drained(producer, "retried");
      assert.equal(row.dead_letters, 1);
      const page = await producer.call("engine::queue::dead_letters", { queue: "retried" });
      const [letter] = page.dead_letters as Message[];
      assert.deepEqual(
        [letter?.id, letter?.attempts, (letter?.last_error as Message).message],
        [receipt, 4, "attempt 4 of message 1 failed"],
      );
      // Redriven: attempts start again from zero (four more failures), then it is buried again.
      assert.deepEqual(await producer.call("engine::queue::redrive", { queue: "retried" }), {
        queue: "retried",
        redriven: 1,
      });
      await consumer.report("failed", (f) => f.attempt === 8, 15_000);
      await eventually(async () => {
        const { total } = await producer.call("engine::queue::dead_letters", { queue: "retried" });
        return total === 1;
      }, "the redriven message buried again");
      const discarded = await producer.call("engine::queue::discard", {
        queue: "retried",
        id: receipt,
      });
      assert.deepEqual(discarded, { queue: "retried", id: receipt, discarded: true });
      assert.equal((await drained(producer, "retried")).dead_letters, 0);
    });
  });

  Deno.test(`[${adapter}] a queue never has more than its concurrency in flight; a queue of concurrency 1 delivers in arrival order`, async () => {
    await withSystem(adapter, async ({ producer, consumer: start }) => {
      const consumer = await start();
      for (let i = 0; i < 6; i++) {
        await producer.enqueue("narrow", "queue-e2e::slow", { i, ms: 100 });
      }
      let max = 0;
      for (let i = 0; i < 6; i++) {
        max = Math.max(max, (await consumer.report("slow")).max as number);
      }
      assert.equal(max, 2);
      // Redis orders messages of one millisecond by id: each enqueue here is in a later one.
      for (let n = 1; n <= 8; n++) {
        nextMillisecond();
        await producer.enqueue("single", "queue-e2e::record", { n });
      }
      assert.deepEqual(await delivered(consumer, 8), [1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });

  Deno.test(`[${adapter}] messages for a function not connected yet wait, using no attempt, and are delivered once it registers`, async () => {
    await withSystem(adapter, async ({ producer, consumer: start }) => {
      for (let n = 1; n <= 5; n++) {
        nextMillisecond();
        await producer.enqueue("single", "queue-e2e::record", { n });
      }
      // Waiting: each queue looks for the function every backoff_ms (100 ms here).
      await eventually(async () => {
        const { queues } = await producer.call("engine::queue::stats", { queue: "single" }) as {
          queues: Record<string, { waited: number }>;
        };
        return (queues.single?.waited ?? 0) > 0;
      }, "a delivery put off for the missing function");
      const consumer = await start();
      // In arrival order: claims leave a missing function's messages in their place.
      assert.deepEqual(await delivered(consumer, 5), [1, 2, 3, 4, 5]);
      assert.equal((await drained(producer, "single")).dead_letters, 0);
      const { queues } = await producer.call("engine::queue::stats", { queue: "single" }) as {
        queues: Record<string, { delivered: number; failed: number }>;
      };
      assert.deepEqual([queues.single?.delivered, queues.single?.failed], [5, 0]);
    });
  });

  Deno.test(`[${adapter}] a consumer killed with SIGKILL mid-delivery: the message is delivered again to the next consumer`, async () => {
    await withSystem(adapter, async ({ producer, consumer: start }) => {
      const first = await start();
      await producer.enqueue("single", "queue-e2e::gate", { n: 1 });
      assert.deepEqual(await first.report("gated"), { n: 1 });
      assert.equal((await first.process.kill("SIGKILL")).signal, "SIGKILL");
      const second = await start();
      assert.deepEqual(await second.report("gated"), { n: 1 });
      await second.send({ op: "open_gate" });
      assert.equal((await drained(producer, "single")).dead_letters, 0);
      const { queues } = await producer.call("engine::queue::stats", { queue: "single" }) as {
        queues: Record<string, { delivered: number; failed: number; retried: number }>;
      };
      // The broken delivery is a failed attempt, retried.
      assert.deepEqual(
        [queues.single?.failed, queues.single?.retried, queues.single?.delivered],
        [1, 1, 1],
      );
    });
  });

  Deno.test(`[${adapter}] the engine killed with SIGKILL with a delivery in flight and messages waiting: all delivered after its restart`, async () => {
    await withSystem(adapter, async (system) => {
      const first = await system.consumer();
      await system.producer.enqueue("single", "queue-e2e::gate", { n: 0 });
      assert.deepEqual(await first.report("gated"), { n: 0 });
      // Behind the delivery in flight (concurrency 1), and for a function not connected.
      for (let n = 1; n <= 3; n++) {
        await system.producer.enqueue("single", "queue-e2e::record", { n });
      }
      await system.producer.enqueue("narrow", "nobody::yet", { n: 9 });
      await system.kill();
      await first.process.kill("SIGKILL");
      await system.restart();
      const second = await system.consumer();
      await second.send({ op: "open_gate" });
      assert.deepEqual((await delivered(second, 3)).toSorted((a, b) => a - b), [1, 2, 3]);
      // The message in flight at the kill is delivered again once its lease ends (1.5 s + 1 s).
      assert.deepEqual(await second.report("gated"), { n: 0 });
      assert.equal((await drained(system.producer, "single")).dead_letters, 0);
      const { queues } = await system.producer.call("engine::queue::list") as {
        queues: QueueRow[];
      };
      const narrow = queues.find((q) => q.name === "narrow");
      // Live (Redis claims it now and then to put it back: in flight for that moment), not dead.
      assert.deepEqual(
        [(narrow?.depth ?? 0) + (narrow?.in_flight ?? 0), narrow?.dead_letters],
        [1, 0],
        "still waiting for its function",
      );
    });
  });
}

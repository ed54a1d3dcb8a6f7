/**
 * A backlog waiting for a function that is not registered: the delivery
 * loop leaves it in the store instead of claiming it and putting it back,
 * batch after batch, at every poll. That loop rewrote the whole backlog
 * every second and held the event loop: with 100,000 messages in 50 queues
 * waiting, `engine::queue::list` took 2 to 3 s to answer. The store's
 * writes are counted, not timed. Once the function comes, the backlog is
 * delivered in arrival order.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { LogStore } from "../../engine/observability/logs.ts";
import { startRedisServer } from "../../tests/support/redis_server.ts";
import { MemoryStore } from "./adapters/memory.ts";
import { RedisStore } from "./adapters/redis.ts";
import { SKIP_WINDOW } from "./adapters/redis_scripts.ts";
import { SqliteStore } from "./adapters/sqlite.ts";
import type { QueueStore } from "./adapters/store.ts";
import { ManualClock } from "./clock.ts";
import { QUEUE_DEFAULTS } from "./config.ts";
import { Dispatcher } from "./dispatcher.ts";

const BACKLOG = 300;
const CONCURRENCY = 10;
const POLL_MS = 1000;

/** A store in `dir` (or on a real redis-server), and what ends it after the store's close. */
type Opened = { store: QueueStore; end?: () => Promise<void> };
const STORES: Record<string, (dir: string) => Promise<Opened>> = {
  memory: () => Promise.resolve({ store: new MemoryStore() }),
  sqlite: (dir) => Promise.resolve({ store: SqliteStore.open({ path: join(dir, "queue.db") }) }),
  redis: async () => {
    const server = await startRedisServer();
    return { store: await RedisStore.connect({ url: server.url }), end: () => server.stop() };
  },
};

for (const [adapter, open] of Object.entries(STORES)) {
  Deno.test(`Dispatcher (${adapter}) leaves a backlog for a missing function in the store, delivers the queue's other messages, and the backlog once the function comes`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "queue-waiting-" });
    const { store: inner, end } = await open(dir);
    // Every write that takes a message and puts it back, counted.
    const writes = { claimed: 0, rescheduled: 0 };
    const store = new Proxy(inner, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          if (name === "claim") writes.claimed += (result as unknown[]).length;
          if (name === "reschedule") writes.rescheduled++;
          return result;
        };
      },
    });
    const clock = new ManualClock();
    const registered = new Set(["here::fn"]);
    const delivered: string[] = [];
    const dispatcher = new Dispatcher({
      store,
      settingsOf: () => ({ ...QUEUE_DEFAULTS, concurrency: CONCURRENCY }),
      target: {
        call: (_functionId, data) => Promise.resolve(void delivered.push(data as string)),
        hasFunction: (id) => registered.has(id),
      },
      log: new LogStore().logger({ source: "engine-queue" }),
      clock,
      pollMs: POLL_MS,
      shutdownGraceMs: 0,
    });
    try {
      // One millisecond apart: Redis orders the messages of one millisecond by id.
      const enqueue = (id: string, functionId: string) => {
        clock.advance(1);
        return inner.enqueue({
          id,
          queue: "jobs",
          functionId,
          dataText: JSON.stringify(id),
          enqueuedAt: clock.now(),
        });
      };
      for (let i = 0; i < BACKLOG; i++) await enqueue(`w${i}`, "gone::fn");
      // Behind the whole backlog: a message for a function that is registered.
      await enqueue("h1", "here::fn");
      dispatcher.start(["jobs"]);
      await dispatcher.idle();
      for (let t = 0; t < 10 * POLL_MS; t += 100) {
        clock.advance(100);
        await dispatcher.idle();
      }
      assert.deepEqual(delivered, ["h1"]);
      // The first batch finds the function missing; its messages go back once, the rest stay.
      assert.ok(
        writes.rescheduled <= CONCURRENCY,
        `${writes.rescheduled} messages put back in 10 polls (claimed ${writes.claimed})`,
      );

      registered.add("gone::fn");
      for (let t = 0; delivered.length < BACKLOG + 1 && t < 10 * POLL_MS; t += 100) {
        clock.advance(100);
        await dispatcher.idle();
      }
      // In arrival order: the messages put back to wait kept their place.
      assert.deepEqual(delivered.slice(1), Array.from({ length: BACKLOG }, (_, i) => `w${i}`));
      assert.deepEqual(await inner.counts("jobs", clock.now()), {
        depth: 0,
        inFlight: 0,
        deadLetters: 0,
      });
    } finally {
      await dispatcher.stop();
      await inner.close();
      await end?.();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test(`Dispatcher (redis) reaches a message behind more than ${SKIP_WINDOW} waiting ones: the run past the claim's window is handed out and put back behind`, async () => {
  const server = await startRedisServer();
  const store = await RedisStore.connect({ url: server.url });
  const clock = new ManualClock();
  const delivered: string[] = [];
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => ({ ...QUEUE_DEFAULTS, concurrency: CONCURRENCY }),
    target: {
      call: (_functionId, data) => Promise.resolve(void delivered.push(data as string)),
      hasFunction: (id) => id === "here::fn",
    },
    log: new LogStore().logger({ source: "engine-queue" }),
    clock,
    pollMs: POLL_MS,
    shutdownGraceMs: 0,
  });
  try {
    const waiting = SKIP_WINDOW + 2 * CONCURRENCY;
    for (let i = 0; i <= waiting; i++) {
      await store.enqueue({
        id: i < waiting ? `w${i}` : "h1",
        queue: "jobs",
        functionId: i < waiting ? "gone::fn" : "here::fn",
        dataText: JSON.stringify(i < waiting ? `w${i}` : "h1"),
        enqueuedAt: clock.now(),
      });
    }
    dispatcher.start(["jobs"]);
    await dispatcher.idle();
    for (let t = 0; delivered.length === 0 && t < 10 * POLL_MS; t += 100) {
      clock.advance(100);
      await dispatcher.idle();
    }
    assert.deepEqual(delivered, ["h1"]);
    assert.deepEqual(await store.counts("jobs", clock.now()), {
      depth: waiting,
      inFlight: 0,
      deadLetters: 0,
    });
  } finally {
    await dispatcher.stop();
    await store.close();
    await server.stop();
  }
});

/**
 * A queue name per entity, through the `engine::queue::*` functions over
 * every adapter (memory, SQLite in a temporary folder, a real
 * `redis-server`): once drained and idle, a queue created on first use
 * leaves `list`, `stats` and the store (its counters kept in the totals),
 * a configured queue keeps its counters, and a forgotten queue works again.
 * Wired as `mod.ts` wires them, on a {@link ManualClock}.
 */

import assert from "node:assert/strict";
import type { InvocationContext } from "../../engine/api.ts";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { onEveryQueueStore, type QueueBackend, type QueueCase } from "./adapters/_testing.ts";
import type { QueueStore } from "./adapters/store.ts";
import { ManualClock } from "./clock.ts";
import { isConfigured, parseConfig } from "./config.ts";
import { Counters } from "./counters.ts";
import { Dispatcher } from "./dispatcher.ts";
import { createQueueFunctions } from "./functions.ts";

const FORGET_AFTER_MS = 60_000;
const POLL_MS = 1000;
const N = 2000;

type Stats = {
  totals: Record<string, number>;
  queues: Record<string, Record<string, number>>;
};

/** The functions and the loop over a store of `backend`; every call answered at once. */
async function workerOn(backend: QueueBackend, stores: QueueStore[]) {
  const store = await backend.open();
  stores.push(store);
  const config = parseConfig({ adapter: "memory", queues: { emails: null } });
  const { log } = recordingLog();
  const clock = new ManualClock();
  const counters = new Counters({ keep: (queue) => isConfigured(config, queue) });
  let acks = 0;
  const waiters: { count: number; resolve(): void }[] = [];
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => config.default_queue,
    target: { call: () => Promise.resolve(null), hasFunction: () => true },
    log,
    clock,
    forgetAfterMs: FORGET_AFTER_MS,
    onEvent: (event) => {
      counters.record(event);
      acks++;
      for (const w of waiters.filter((w) => acks >= w.count)) w.resolve();
    },
    onForget: (queue) => counters.forget(queue),
  });
  dispatcher.start([]);
  const functions = createQueueFunctions({ config, store, dispatcher, counters, clock, log });
  const call = async (id: string, payload: unknown) => {
    const ctx: InvocationContext = {
      functionId: id,
      invocationId: "test",
      signal: new AbortController().signal,
    };
    return await functions[`engine::queue::${id}`]!.handler(payload, ctx);
  };
  const enqueue = (queue: string) => call("enqueue", { queue, function_id: "jobs::run" });
  /** Resolves once `count` deliveries in all were recorded and the loop is idle. */
  const delivered = async (count: number) => {
    if (acks < count) await new Promise<void>((resolve) => waiters.push({ count, resolve }));
    await dispatcher.idle();
  };
  const advance = async (ms: number) => {
    clock.advance(ms);
    await dispatcher.idle();
  };
  return { store, dispatcher, call, enqueue, delivered, advance };
}

const cases: Record<string, QueueCase> = {
  "drained queues created on first use are forgotten after idling; configured ones keep counters":
    async (backend, stores) => {
      const w = await workerOn(backend, stores);
      for (let i = 0; i < N; i += 100) {
        await Promise.all(Array.from({ length: 100 }, (_, j) => w.enqueue(`user-${i + j}`)));
      }
      await w.enqueue("emails");
      await w.delivered(N + 1);
      assert.deepEqual(w.dispatcher.queues, [], "nothing left to deliver");
      const before = await w.call("stats", {}) as Stats;
      assert.equal(Object.keys(before.queues).length, N + 1, "listed until the idle period ends");

      await w.advance(FORGET_AFTER_MS);
      await w.advance(POLL_MS);
      assert.deepEqual(await w.store.queues(), []);
      assert.deepEqual(await w.store.liveQueues(), []);
      assert.equal(w.dispatcher.idleQueues, 0);
      const list = await w.call("list", {}) as { queues: { name: string }[] };
      assert.deepEqual(list.queues.map((q) => q.name), ["emails"]);
      const stats = await w.call("stats", {}) as Stats;
      assert.deepEqual(Object.keys(stats.queues), ["emails"]);
      assert.equal(stats.queues.emails!.delivered, 1, "a configured queue keeps its counters");
      assert.equal(stats.totals.enqueued, N + 1, "the totals keep forgotten queues' counts");
      assert.equal(stats.totals.delivered, N + 1);

      // Used again: created anew, its counters from zero.
      await w.enqueue("user-7");
      await w.delivered(N + 2);
      const again = await w.call("stats", { queue: "user-7" }) as Stats;
      assert.equal(again.queues["user-7"]!.enqueued, 1);
      assert.equal(again.queues["user-7"]!.delivered, 1);
      assert.equal(again.totals.delivered, N + 2);
      await w.dispatcher.stop();
    },
};

onEveryQueueStore("engine-queue with a queue per entity", cases, "queue-idle-");

/**
 * The delivery loop while its store fails every call at once (Redis
 * unreachable, an outage logged by the store): it polls once per `pollMs`,
 * not in a loop, and logs nothing of its own; the store back, it delivers.
 */

import assert from "node:assert/strict";
import { LogStore } from "../../engine/observability/logs.ts";
import { markLoggedOutage } from "../_shared/store_outage.ts";
import { MemoryStore } from "./adapters/memory.ts";
import type { QueueStore } from "./adapters/store.ts";
import { ManualClock } from "./clock.ts";
import { QUEUE_DEFAULTS } from "./config.ts";
import { Dispatcher } from "./dispatcher.ts";

const POLL_MS = 1000;
const QUEUES = ["a", "b", "c"];

/** A memory store whose calls fail at once while `down`, as during a logged outage; calls counted. */
function outageStore() {
  const memory = new MemoryStore();
  const outage = { countFailedCall() {} };
  const state = { down: false, calls: 0 };
  const store = new Proxy(memory, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        state.calls++;
        if (state.down) {
          throw markLoggedOutage(new Error("Redis at redis://h:6379 is unreachable: down"), outage);
        }
        return value.apply(target, args);
      };
    },
  }) as QueueStore;
  return { memory, store, state };
}

Deno.test("Dispatcher polls a store that fails at once once per poll, not in a loop, logging nothing itself", async () => {
  const clock = new ManualClock();
  const logs = new LogStore();
  const { memory, store, state } = outageStore();
  const delivered: unknown[] = [];
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => QUEUE_DEFAULTS,
    target: {
      call: (_id, data) => Promise.resolve(void delivered.push(data)),
      hasFunction: () => true,
    },
    log: logs.logger({ source: "engine-queue" }),
    clock,
    pollMs: POLL_MS,
  });
  // A message due in the past: a loop that re-armed at its due time after each failed claim spun.
  memory.enqueue({
    id: "m1",
    queue: "a",
    functionId: "f::g",
    dataText: "1",
    enqueuedAt: clock.now() - 60_000,
  });
  state.down = true;
  dispatcher.start(QUEUES);
  await dispatcher.idle();
  const before = state.calls;
  const seconds = 10;
  for (let t = 0; t < seconds * POLL_MS; t += 10) {
    clock.advance(10);
    await dispatcher.idle();
  }
  const perPoll = (state.calls - before) / seconds;
  // Each poll: a claim and a look at the next due time per queue, and the store's queue names.
  assert.ok(perPoll <= 2 * QUEUES.length + 2, `${perPoll} store calls per poll`);
  assert.ok(perPoll >= QUEUES.length, `${perPoll} store calls per poll: it stopped polling`);
  assert.deepEqual(logs.query().map((e) => e.message), []);

  state.down = false;
  for (let t = 0; t < POLL_MS && delivered.length === 0; t += 10) {
    clock.advance(10);
    await dispatcher.idle();
  }
  assert.deepEqual(delivered, [1]);
  await dispatcher.stop();
});

Deno.test("Dispatcher claims a queue whose claims keep failing once per poll, though a message is due", async () => {
  const clock = new ManualClock();
  const logs = new LogStore();
  const memory = new MemoryStore();
  let claims = 0;
  const store = new Proxy(memory, {
    get(target, name, receiver) {
      if (name !== "claim") {
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        claims++;
        throw new Error("WRONGTYPE Operation against a key holding the wrong kind of value");
      };
    },
  }) as QueueStore;
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => QUEUE_DEFAULTS,
    target: { call: () => Promise.resolve(), hasFunction: () => true },
    log: logs.logger({ source: "engine-queue" }),
    clock,
    pollMs: POLL_MS,
  });
  memory.enqueue({
    id: "m1",
    queue: "a",
    functionId: "f::g",
    dataText: "1",
    enqueuedAt: clock.now(),
  });
  dispatcher.start(["a"]);
  await dispatcher.idle();
  const seconds = 10;
  for (let t = 0; t < seconds * POLL_MS; t += 10) {
    clock.advance(10);
    await dispatcher.idle();
  }
  // Before, the due message re-armed the timer at once after each failure: a claim (and an
  // error line) every millisecond.
  assert.ok(claims <= seconds + 2, `${claims} claims in ${seconds} polls`);
  const lines = logs.query().map((e) => e.message);
  assert.equal(lines.length, claims, lines.join("\n"));
  assert.match(lines[0] ?? "", /^Cannot claim messages of queue "a": WRONGTYPE/);
  await dispatcher.stop();
});

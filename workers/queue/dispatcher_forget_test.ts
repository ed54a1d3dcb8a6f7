/**
 * The delivery loop with many queue names (a queue per entity): a drained
 * queue leaves no state in the loop and costs no claim per poll, and its name
 * is forgotten by the store once empty and idle for `forgetAfterMs`; a queue
 * holding dead letters is kept. Memory store, manual clock.
 */

import assert from "node:assert/strict";
import { dispatchHarness, failure } from "./_dispatch_harness.ts";

const FORGET_AFTER_MS = 60_000;
const POLL_MS = 1000;

/** Stores one message in `queue` for `jobs::run` and tells the dispatcher. */
async function enqueueTo(h: ReturnType<typeof dispatchHarness>, queue: string, id: string) {
  await h.store.enqueue({
    id,
    queue,
    functionId: "jobs::run",
    dataText: JSON.stringify(id),
    enqueuedAt: h.clock.now(),
  });
  h.dispatcher.notify(queue);
}

/** Moves past the idle period: one poll to reach it, one to sweep at its end. */
async function pastForgetting(h: ReturnType<typeof dispatchHarness>) {
  await h.advance(FORGET_AFTER_MS);
  await h.advance(POLL_MS);
}

Deno.test("Dispatcher keeps nothing per drained queue: 5,000 names cost no claim per poll, are forgotten, and work again", async () => {
  const N = 5000;
  const h = dispatchHarness({}, { forgetAfterMs: FORGET_AFTER_MS });
  h.dispatcher.start([]);
  const answered = (async () => {
    for (let i = 0; i < N; i++) (await h.calls.next()).resolve();
  })();
  for (let i = 0; i < N; i++) await enqueueTo(h, `user-${i}`, `m${i}`);
  await answered;
  for (let i = 0; i < N; i++) assert.equal((await h.events.next()).kind, "ack");
  await h.dispatcher.idle();
  assert.deepEqual(h.dispatcher.queues, []);
  assert.equal(h.dispatcher.idleQueues, N);
  assert.equal(h.store.queues().length, N, "the names stay until the idle period ends");

  h.store.claims = 0;
  h.store.nextDues = 0;
  await h.advance(POLL_MS);
  assert.equal(h.store.claims, 0, "a poll claims from no drained queue");
  assert.equal(h.store.nextDues, 0, "a poll plans no drained queue");

  await pastForgetting(h);
  assert.equal(h.forgotten.length, N);
  assert.equal(h.dispatcher.idleQueues, 0);
  assert.deepEqual(h.store.queues(), []);
  assert.deepEqual(h.dispatcher.queues, []);

  // Used again: delivered as before, and forgotten again once drained and idle.
  await enqueueTo(h, "user-17", "again");
  const call = await h.calls.next();
  assert.equal(call.data, "again");
  call.resolve();
  assert.deepEqual(await h.events.next(), {
    queue: "user-17",
    id: "again",
    kind: "ack",
    attempts: 0,
  });
  await h.dispatcher.idle();
  assert.deepEqual(h.store.queues(), ["user-17"]);
  await pastForgetting(h);
  assert.equal(h.forgotten.at(-1), "user-17");
  assert.deepEqual(h.store.queues(), []);
  await h.dispatcher.stop();
});

Deno.test("Dispatcher polls only the live queue among many drained ones, found in the store within a poll", async () => {
  const h = dispatchHarness({}, { forgetAfterMs: FORGET_AFTER_MS });
  h.dispatcher.start([]);
  for (let i = 0; i < 100; i++) {
    await enqueueTo(h, `drained-${i}`, `m${i}`);
    (await h.calls.next()).resolve();
    await h.events.next();
  }
  await h.dispatcher.idle();
  // Another engine sharing the store stores a message in one of them: no notice here.
  await h.store.enqueue({
    id: "elsewhere",
    queue: "drained-42",
    functionId: "jobs::run",
    dataText: '"from another engine"',
    enqueuedAt: h.clock.now(),
  });
  h.store.claims = 0;
  await h.advance(POLL_MS);
  const call = await h.calls.next();
  assert.equal(call.data, "from another engine");
  assert.equal(h.store.claims, 1, "one claim, of the queue holding a message");
  call.resolve();
  await h.events.next();
  await h.dispatcher.idle();
  assert.deepEqual(h.dispatcher.queues, []);
  await h.dispatcher.stop();
});

Deno.test("Dispatcher forgets a queue holding dead letters only once they are gone, and does not poll it meanwhile", async () => {
  const h = dispatchHarness({ max_attempts: 1 }, { forgetAfterMs: FORGET_AFTER_MS });
  h.dispatcher.start([]);
  await enqueueTo(h, "failing", "m1");
  (await h.calls.next()).reject(failure("boom"));
  assert.equal((await h.events.next()).kind, "bury");
  await h.dispatcher.idle();
  assert.deepEqual(h.dispatcher.queues, []);
  h.store.claims = 0;
  await pastForgetting(h);
  assert.equal(h.store.claims, 0);
  assert.deepEqual(h.forgotten, [], "a dead letter keeps the queue");
  assert.deepEqual(h.store.queues(), ["failing"]);

  assert.equal(h.store.discard("failing", "m1"), true);
  h.dispatcher.touch("failing");
  await h.advance(FORGET_AFTER_MS - POLL_MS);
  assert.deepEqual(h.forgotten, [], "not before the idle period ends");
  await pastForgetting(h);
  assert.deepEqual(h.forgotten, ["failing"]);
  assert.deepEqual(h.store.queues(), []);
  await h.dispatcher.stop();
});

Deno.test("Dispatcher does not forget a queue used again during its idle period", async () => {
  const h = dispatchHarness({}, { forgetAfterMs: FORGET_AFTER_MS });
  h.dispatcher.start([]);
  await enqueueTo(h, "jobs", "m1");
  (await h.calls.next()).resolve();
  await h.events.next();
  await h.dispatcher.idle();
  await h.advance(FORGET_AFTER_MS - 10 * POLL_MS);
  await enqueueTo(h, "jobs", "m2");
  (await h.calls.next()).resolve();
  await h.events.next();
  await h.dispatcher.idle();
  await h.advance(20 * POLL_MS);
  await h.advance(POLL_MS);
  assert.deepEqual(h.forgotten, [], "idle since m2 only");
  await pastForgetting(h);
  assert.deepEqual(h.forgotten, ["jobs"]);
  await h.dispatcher.stop();
});

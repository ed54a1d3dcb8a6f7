import assert from "node:assert/strict";
import { CallError } from "../../engine/api.ts";
import { dispatchHarness, failure } from "./_dispatch_harness.ts";
import { LEASE_GRACE_MS } from "./dispatcher.ts";
import { FUNCTION_WAIT_MIN_MS } from "./retry.ts";

Deno.test("Dispatcher delivers a message with its trace context and deletes it on success", async () => {
  const h = dispatchHarness({ visibility_timeout_ms: 700 });
  h.dispatcher.start([]);
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  await h.enqueue({ n: 1 }, { traceparent });
  const call = await h.calls.next();
  assert.equal(call.functionId, "jobs::run");
  assert.deepEqual(call.data, { n: 1 });
  assert.equal(call.options.timeoutMs, 700);
  assert.equal(call.options.traceparent, traceparent);
  call.resolve({ ignored: true });
  assert.deepEqual(await h.events.next(), { queue: "jobs", id: "m1", kind: "ack", attempts: 0 });
  await h.dispatcher.idle();
  assert.deepEqual(h.store.counts("jobs", h.clock.now()), {
    depth: 0,
    inFlight: 0,
    deadLetters: 0,
  });
  await h.dispatcher.stop();
});

Deno.test("Dispatcher never has more than concurrency deliveries of a queue in flight", async () => {
  const h = dispatchHarness({ concurrency: 3 });
  h.dispatcher.start([]);
  for (let i = 0; i < 10; i++) await h.enqueue({ i });
  await h.dispatcher.idle();
  assert.equal(h.calls.all.length, 3);
  for (let answered = 0; answered < 10; answered++) {
    const call = await h.calls.next();
    call.resolve();
    await h.events.next();
    await h.dispatcher.idle();
    assert.ok(h.dispatcher.inFlight("jobs") <= 3);
  }
  assert.equal(h.calls.all.length, 10);
  assert.equal(h.maxInFlight, 3);
  assert.deepEqual(
    h.calls.all.map((c) => (c.data as { i: number }).i),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  await h.dispatcher.stop();
});

Deno.test("Dispatcher retries with capped exponential backoff, then makes a dead letter", async () => {
  const h = dispatchHarness({ max_attempts: 5, backoff_ms: 100, max_backoff_ms: 300 });
  h.dispatcher.start([]);
  const start = h.clock.now();
  const id = await h.enqueue({ job: "x" });
  const expected = [
    { after: 0, kind: "retry" },
    { after: 100, kind: "retry" },
    { after: 300, kind: "retry" }, // 100 + 200
    { after: 600, kind: "retry" }, // + 400 capped at 300
    { after: 900, kind: "bury" }, // + 300
  ];
  for (const [i, step] of expected.entries()) {
    const wait = start + step.after - h.clock.now();
    // Just before the retry is due nothing happens.
    if (wait > 0) {
      await h.advance(wait - 1);
      assert.equal(h.calls.all.length, i, `no call ${i + 1} before it is due`);
      await h.advance(1);
    }
    const call = await h.calls.next();
    assert.equal(call.at - start, step.after);
    call.reject(failure(`boom #${i + 1}`));
    const event = await h.events.next();
    assert.equal(event.kind, step.kind);
    assert.equal(event.attempts, i + 1);
    await h.dispatcher.idle();
  }
  const [dead, ...others] = h.store.deadLetters("jobs", 10).letters;
  assert.deepEqual(others, []);
  assert.equal(dead?.id, id);
  assert.equal(dead?.attempts, 5);
  assert.deepEqual(dead?.lastError, { code: "invocation_failed", message: "boom #5" });
  assert.deepEqual(dead?.data, { job: "x" });
  assert.ok(h.logs.query({ level: "warn", text: "dead letter after 5 attempts" }).length === 1);
  // Nothing is delivered any more.
  await h.advance(10_000);
  assert.equal(h.calls.all.length, 5);
  await h.dispatcher.stop();
});

Deno.test("Dispatcher counts a timed-out delivery as a failed attempt", async () => {
  const h = dispatchHarness({ max_attempts: 1 });
  h.dispatcher.start([]);
  await h.enqueue(1);
  (await h.calls.next()).reject(
    new CallError({ code: "invocation_timeout", message: "Invocation of jobs::run timed out" }),
  );
  const event = await h.events.next();
  assert.equal(event.kind, "bury");
  assert.equal(event.error?.code, "invocation_timeout");
  await h.dispatcher.stop();
});

Deno.test("Dispatcher keeps a message for a missing function waiting without using attempts", async () => {
  const h = dispatchHarness({ max_attempts: 1, backoff_ms: 10 });
  h.registered.clear();
  h.dispatcher.start([]);
  await h.enqueue({ waiting: true });
  const event = await h.events.next();
  assert.equal(event.kind, "wait");
  assert.equal(event.attempts, 0);
  assert.equal(event.error?.code, "function_not_found");
  // Left in the store from then on, not claimed and put back at every look.
  for (let i = 0; i < 3; i++) await h.advance(FUNCTION_WAIT_MIN_MS);
  assert.equal(h.events.all.length, 1);
  assert.equal(h.calls.all.length, 0);
  h.registered.add("jobs::run");
  await h.advance(FUNCTION_WAIT_MIN_MS);
  const call = await h.calls.next();
  assert.deepEqual(call.data, { waiting: true });
  call.resolve();
  assert.equal((await h.events.next()).kind, "ack");
  await h.dispatcher.stop();
});

Deno.test("Dispatcher treats function_not_found from a vanished function as waiting", async () => {
  const h = dispatchHarness({ max_attempts: 1 });
  h.dispatcher.start([]);
  await h.enqueue(1);
  const call = await h.calls.next();
  h.registered.clear();
  call.reject(
    new CallError({ code: "function_not_found", message: "Function jobs::run not found" }),
  );
  assert.equal((await h.events.next()).kind, "wait");
  assert.deepEqual(h.store.deadLetters("jobs", 10), { letters: [], total: 0 });
  await h.dispatcher.stop();
});

Deno.test("Dispatcher delivers a message whose lease ran out (claimed by an engine that died)", async () => {
  const h = dispatchHarness({ visibility_timeout_ms: 5000 });
  const id = await h.store.enqueue({
    id: "orphan",
    queue: "jobs",
    functionId: "jobs::run",
    dataText: '"left behind"',
    enqueuedAt: h.clock.now(),
  });
  assert.ok(id);
  // Another engine claims it and dies without an answer.
  h.store.claim("jobs", h.clock.now(), 10, h.clock.now() + 5000 + LEASE_GRACE_MS);
  h.dispatcher.start(["jobs"]);
  await h.dispatcher.idle();
  assert.equal(h.calls.all.length, 0);
  await h.advance(5000 + LEASE_GRACE_MS);
  const call = await h.calls.next();
  assert.equal(call.data, "left behind");
  call.resolve();
  assert.deepEqual(await h.events.next(), {
    queue: "jobs",
    id: "orphan",
    kind: "ack",
    attempts: 0,
  });
  await h.dispatcher.stop();
});

Deno.test("Dispatcher stop() releases deliveries in flight without using an attempt", async () => {
  const h = dispatchHarness({ max_attempts: 1, concurrency: 2 });
  h.dispatcher.start([]);
  await h.enqueue("a");
  await h.enqueue("b");
  await h.calls.next();
  await h.calls.next();
  await h.dispatcher.stop();
  assert.deepEqual(h.store.counts("jobs", h.clock.now()), {
    depth: 2,
    inFlight: 0,
    deadLetters: 0,
  });
  const again = h.store.claim("jobs", h.clock.now(), 10, h.clock.now() + 1);
  assert.deepEqual(again.map((m) => [m.data, m.attempts]), [["a", 0], ["b", 0]]);
  // After stop() nothing more is claimed: both messages are due again, and a notice claims none.
  await h.advance(2);
  h.dispatcher.notify("jobs");
  await h.dispatcher.idle();
  assert.equal(h.calls.all.length, 2);
  assert.equal(h.store.counts("jobs", h.clock.now()).inFlight, 0);
  assert.equal(h.clock.pending, 0);
});

Deno.test("Dispatcher stop() puts a released message back in its arrival place, ahead of later ones", async () => {
  const h = dispatchHarness({ concurrency: 1 });
  h.dispatcher.start([]);
  await h.enqueue("first");
  await h.enqueue("second");
  await h.calls.next();
  // The delivery of "first" runs a while; a restart (a config reload) stops it midway.
  h.clock.advance(50);
  await h.dispatcher.stop();
  const again = h.store.claim("jobs", h.clock.now(), 10, h.clock.now() + 1);
  assert.deepEqual(again.map((m) => [m.data, m.attempts]), [["first", 0], ["second", 0]]);
});

Deno.test("Dispatcher delivers queues independently, each with its own limit", async () => {
  const h = dispatchHarness({ concurrency: 1 });
  h.dispatcher.start([]);
  await h.enqueue("jobs-1");
  await h.enqueue("jobs-2");
  await h.store.enqueue({
    id: "o1",
    queue: "other",
    functionId: "jobs::run",
    dataText: '"other-1"',
    enqueuedAt: h.clock.now(),
  });
  h.dispatcher.notify("other");
  await h.dispatcher.idle();
  assert.deepEqual(h.calls.all.map((c) => c.data).sort(), ["jobs-1", "other-1"]);
  await h.dispatcher.stop();
});

Deno.test("Dispatcher delivers a queue another engine created in the shared store, within one poll", async () => {
  const h = dispatchHarness();
  h.dispatcher.start([]);
  await h.dispatcher.idle();
  // Another engine sharing the store creates the queue and stores a message: no notice here.
  await h.store.enqueue({
    id: "elsewhere-1",
    queue: "elsewhere",
    functionId: "jobs::run",
    dataText: '"from another engine"',
    enqueuedAt: h.clock.now(),
  });
  await h.advance(1000);
  const call = await h.calls.next();
  assert.equal(call.data, "from another engine");
  call.resolve();
  assert.deepEqual(await h.events.next(), {
    queue: "elsewhere",
    id: "elsewhere-1",
    kind: "ack",
    attempts: 0,
  });
  await h.dispatcher.idle();
  assert.deepEqual(h.dispatcher.queues, [], "drained: no longer looked at");
  await h.dispatcher.stop();
});

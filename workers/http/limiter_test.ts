import assert from "node:assert/strict";
import { Limiter } from "./limiter.ts";

Deno.test("Limiter hands slots to waiters in arrival order", async () => {
  const limiter = new Limiter(1, 4);
  const never = new AbortController().signal;
  assert.equal(await limiter.acquire(never), "acquired");
  const order: number[] = [];
  const waits = [1, 2, 3].map((n) => limiter.acquire(never).then(() => order.push(n)));
  assert.equal(limiter.waiting, 3);
  assert.equal(limiter.active, 1);
  for (let i = 0; i < 3; i++) {
    limiter.release();
    await waits[i];
  }
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(limiter.waiting, 0);
  limiter.release();
  assert.equal(limiter.active, 0);
});

Deno.test("Limiter refuses a request when the queue is full", async () => {
  const limiter = new Limiter(2);
  const never = new AbortController().signal;
  for (let i = 0; i < 2; i++) assert.ok(limiter.tryAcquire());
  const waiting = Array.from({ length: 8 }, () => limiter.acquire(never));
  assert.equal(limiter.waiting, 8);
  assert.equal(await limiter.acquire(never), "queue_full");
  for (let i = 0; i < 10; i++) limiter.release();
  assert.deepEqual(await Promise.all(waiting), Array(8).fill("acquired"));
  assert.equal(limiter.active, 0);
});

Deno.test("Limiter drops a waiter whose signal aborts", async () => {
  const limiter = new Limiter(1);
  assert.ok(limiter.tryAcquire());
  const controller = new AbortController();
  const wait = limiter.acquire(controller.signal);
  assert.equal(limiter.waiting, 1);
  controller.abort(new Error("gone"));
  await assert.rejects(wait, /gone/);
  assert.equal(limiter.waiting, 0);
  limiter.release();
  assert.equal(limiter.active, 0);
});

Deno.test("new Limiter() refuses a limit below 1", () => {
  assert.throws(() => new Limiter(0), /Invalid concurrency limit 0/);
});

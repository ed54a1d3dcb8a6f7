import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { FramePacer } from "./pacer.ts";

/** Resolves after `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

Deno.test("FramePacer hands on a few frames per turn, in the order they came", async () => {
  const pacer = new FramePacer(3);
  const seen: string[] = [];
  const sink = (item: string) => seen.push(item);
  for (let i = 0; i < 8; i++) pacer.submit(sink, `a${i}`);
  assert.deepEqual(seen, ["a0", "a1", "a2"], "the first three at once");
  assert.equal(pacer.waiting, 5);
  // One arriving while others wait queues behind them, even with budget left later.
  pacer.submit(sink, "b0");
  await turns(1);
  assert.deepEqual(seen, ["a0", "a1", "a2", "a3", "a4", "a5"]);
  await turns(2);
  assert.deepEqual(seen, ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0"]);
  assert.equal(pacer.waiting, 0);
});

Deno.test("FramePacer keeps each sink's items with their sink across turns", async () => {
  const pacer = new FramePacer(2);
  const seen: string[] = [];
  const a = (item: number) => seen.push(`a${item}`);
  const b = (item: number) => seen.push(`b${item}`);
  for (let i = 0; i < 3; i++) {
    pacer.submit(a, i);
    pacer.submit(b, i);
  }
  await turns(3);
  assert.deepEqual(seen, ["a0", "b0", "a1", "b1", "a2", "b2"]);
});

Deno.test("FramePacer goes on with the queue after a sink throws", async () => {
  const pacer = new FramePacer(1);
  const seen: number[] = [];
  const failures: unknown[] = [];
  const sink = (item: number) => {
    seen.push(item);
    if (item === 1) throw new Error("boom");
  };
  pacer.submit(sink, 0);
  pacer.submit(sink, 1);
  pacer.submit(sink, 2);
  // The throw surfaces as an uncaught error of that turn; catch it here to let the test go on.
  const onError = (e: ErrorEvent) => {
    failures.push(e.error);
    e.preventDefault();
  };
  globalThis.addEventListener("error", onError);
  try {
    await turns(4);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
  assert.deepEqual(seen, [0, 1, 2]);
  assert.equal((failures[0] as Error | undefined)?.message, "boom");
});

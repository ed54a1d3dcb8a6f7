import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { FramePacer, LANE_FRAMES, LANE_UNITS } from "./pacer.ts";

/** Resolves after `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

Deno.test("FramePacer hands on a few frames per turn, in the order they came", async () => {
  const pacer = new FramePacer(3);
  const seen: string[] = [];
  const lane = pacer.lane((item: string) => seen.push(item));
  for (let i = 0; i < 8; i++) lane.submit(`a${i}`);
  assert.deepEqual(seen, ["a0", "a1", "a2"], "the first three at once");
  assert.equal(pacer.waiting, 5);
  // One arriving while others wait queues behind them, even with budget left later.
  lane.submit("b0");
  await turns(1);
  assert.deepEqual(seen, ["a0", "a1", "a2", "a3", "a4", "a5"]);
  await turns(2);
  assert.deepEqual(seen, ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0"]);
  assert.equal(pacer.waiting, 0);
});

Deno.test("FramePacer keeps each sink's items with their sink across turns", async () => {
  const pacer = new FramePacer(2);
  const seen: string[] = [];
  const a = pacer.lane((item: number) => seen.push(`a${item}`));
  const b = pacer.lane((item: number) => seen.push(`b${item}`));
  for (let i = 0; i < 3; i++) {
    a.submit(i);
    b.submit(i);
  }
  await turns(3);
  assert.deepEqual(seen, ["a0", "b0", "a1", "b1", "a2", "b2"]);
});

Deno.test("FramePacer goes on with the queue after a sink throws", async () => {
  const pacer = new FramePacer(1);
  const seen: number[] = [];
  const failures: unknown[] = [];
  const lane = pacer.lane((item: number) => {
    seen.push(item);
    if (item === 1) throw new Error("boom");
  });
  lane.submit(0);
  lane.submit(1);
  lane.submit(2);
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

Deno.test("FramePacer lets lanes take turns: a long queue does not hold up another lane", async () => {
  const pacer = new FramePacer(2);
  const seen: string[] = [];
  const flood = pacer.lane((item: number) => seen.push(`f${item}`));
  const quiet = pacer.lane((item: number) => seen.push(`q${item}`));
  for (let i = 0; i < 100; i++) flood.submit(i);
  quiet.submit(0);
  quiet.submit(1);
  assert.deepEqual(seen, ["f0", "f1"]);
  assert.equal(pacer.waiting, 100);
  await turns(2);
  assert.deepEqual(seen, ["f0", "f1", "f2", "q0", "f3", "q1"]);
  await turns(48);
  assert.equal(seen.length, 102);
  assert.deepEqual(
    seen.filter((s) => s.startsWith("f")),
    Array.from({ length: 100 }, (_, i) => `f${i}`),
  );
  assert.equal(pacer.waiting, 0);
});

Deno.test("FramePacer: a lane past LANE_FRAMES or LANE_UNITS hands its oldest on as new ones come", async () => {
  const pacer = new FramePacer(2);
  const seen: number[] = [];
  const lane = pacer.lane((item: number) => seen.push(item));
  for (let i = 0; i < LANE_FRAMES + 76; i++) lane.submit(i);
  // Two went on within the turn's budget, 74 more to stay within the bound, in order.
  assert.deepEqual(seen, Array.from({ length: 76 }, (_, i) => i));
  assert.equal(lane.waiting, LANE_FRAMES);
  await turns(LANE_FRAMES / 2 + 1);
  assert.equal(seen.length, LANE_FRAMES + 76);
  assert.deepEqual(seen, Array.from({ length: LANE_FRAMES + 76 }, (_, i) => i));
  assert.equal(pacer.waiting, 0);

  const texts: string[] = [];
  const big = pacer.lane((item: string) => texts.push(item));
  const part = (c: string) => c.repeat(LANE_UNITS * 0.6);
  await turns(1);
  big.submit(part("a")); // within the turn's budget
  big.submit(part("b"));
  big.submit(part("c"));
  big.submit(part("d"));
  assert.deepEqual(texts.map((t) => t[0]), ["a", "b", "c"]);
  assert.equal(big.waiting, 1);
  // Emptied as its frames come, the lane leaves the ring and joins it again when one waits.
  await turns(2);
  assert.deepEqual(texts.map((t) => t[0]), ["a", "b", "c", "d"]);
  big.submit(part("e"));
  await turns(2);
  assert.deepEqual(texts.map((t) => t[0]), ["a", "b", "c", "d", "e"]);
  assert.equal(pacer.waiting, 0);
});

Deno.test("FramePacer: lanes take turns while a lane past its bound hands frames on", async () => {
  const pacer = new FramePacer(2);
  const seen: string[] = [];
  const flood = pacer.lane((item: number) => seen.push(`f${item}`));
  const quiet = pacer.lane((item: number) => seen.push(`q${item}`));
  flood.submit(0);
  flood.submit(1);
  quiet.submit(0); // waits: the turn's budget is spent
  quiet.submit(1);
  // One read of a flooding client: far more frames than its lane holds, in one go.
  for (let i = 2; i < 3 * LANE_FRAMES; i++) flood.submit(i);
  // The frames the flood hands on past its bound let the other lanes take their turns too: the
  // quiet lane's frames went on within the first frames of the flood's overflow, not after it.
  const q1 = seen.indexOf("q1");
  assert.ok(q1 >= 0 && q1 < 8, `q1 at ${q1} of ${seen.length}`);
  assert.equal(flood.waiting, LANE_FRAMES);
  await turns(LANE_FRAMES / 2 + 1);
  assert.deepEqual(
    seen.filter((s) => s.startsWith("f")),
    Array.from({ length: 3 * LANE_FRAMES }, (_, i) => `f${i}`),
  );
  assert.equal(pacer.waiting, 0);
});

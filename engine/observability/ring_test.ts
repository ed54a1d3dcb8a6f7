import assert from "node:assert/strict";
import { Ring } from "./ring.ts";

Deno.test("Ring keeps its newest items; newest(n) gives them newest first, across the wrap", () => {
  const ring = new Ring<number>(4);
  assert.deepEqual(ring.newest(3), []);
  for (let i = 1; i <= 6; i++) ring.push(i);
  assert.deepEqual(ring.toArray(), [3, 4, 5, 6]);
  assert.deepEqual(ring.newest(2), [6, 5]);
  assert.deepEqual(ring.newest(10), [6, 5, 4, 3]);
  assert.throws(() => new Ring(0), /positive integer/);
});

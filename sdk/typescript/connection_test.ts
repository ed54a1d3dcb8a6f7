import assert from "node:assert/strict";
import { DEFAULT_RECONNECT, reconnectDelay } from "./connection.ts";

Deno.test("reconnectDelay() grows by the multiplier up to the cap, with ± jitter", () => {
  const cases: [attempt: number, random: number, expected: number][] = [
    [0, 0.5, 1000], // random 0.5 = no jitter
    [1, 0.5, 2000],
    [4, 0.5, 16000],
    [5, 0.5, 30000], // capped
    [50, 0.5, 30000],
    [0, 0, 700], // -30 %
    [0, 1, 1300], // +30 %
    [5, 1, 39000], // jitter applies to the capped delay
  ];
  for (const [attempt, random, expected] of cases) {
    assert.equal(
      reconnectDelay(attempt, DEFAULT_RECONNECT, () => random),
      expected,
      `attempt ${attempt}, random ${random}`,
    );
  }
});

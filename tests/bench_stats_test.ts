import assert from "node:assert/strict";
import { medians } from "../bench/stats.ts";

Deno.test("medians() takes the median of each field on its own", () => {
  const cases: [{ p50: number; p99: number }[], { p50: number; p99: number }][] = [
    [[{ p50: 1, p99: 9 }], { p50: 1, p99: 9 }],
    [[{ p50: 3, p99: 1 }, { p50: 1, p99: 3 }, { p50: 2, p99: 2 }], { p50: 2, p99: 2 }],
    // Of an even count, the upper middle one.
    [[{ p50: 4, p99: 40 }, { p50: 1, p99: 10 }], { p50: 4, p99: 40 }],
  ];
  for (const [runs, expected] of cases) assert.deepEqual(medians(runs, ["p50", "p99"]), expected);
});

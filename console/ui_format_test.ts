import assert from "node:assert/strict";
// The browser helpers' formatting is plain JavaScript: it runs here as it does in the page.
import { duration } from "./assets/ui.js";

Deno.test("duration() reads as people say it, and a span of 0 ms as under a millisecond", () => {
  const cases: [number | undefined, string][] = [
    [undefined, ""],
    [0, "< 1 ms"],
    [0.25, "250 µs"],
    [12.34, "12.3 ms"],
    [1500, "1.5 s"],
    [59_940, "59.9 s"],
    [125_000, "2 min 5 s"],
    [7_260_000, "2 h 1 min"],
  ];
  for (const [ms, text] of cases) assert.equal(duration(ms), text, `duration(${ms})`);
});

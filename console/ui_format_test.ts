import assert from "node:assert/strict";
// The browser helpers' formatting is plain JavaScript: it runs here as it does in the page.
import { duration, stamp } from "./assets/ui.js";

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

Deno.test("stamp() gives the time of an entry from today, and the date too of an older one", () => {
  // Local times, as the browser shows them: the cases hold in any time zone.
  const now = new Date(2025, 2, 9, 14, 30).getTime();
  const cases: [Date, string][] = [
    [new Date(2025, 2, 9, 14, 29, 5, 7), "14:29:05.007"],
    [new Date(2025, 2, 9, 0, 0, 0, 0), "00:00:00.000"],
    [new Date(2025, 2, 8, 23, 59, 59, 999), "2025-03-08 23:59:59.999"],
    [new Date(2024, 2, 9, 14, 29, 5, 7), "2024-03-09 14:29:05.007"],
    // A clock ahead of the browser's: another day is another day, either way.
    [new Date(2025, 2, 10, 0, 0, 1, 0), "2025-03-10 00:00:01.000"],
  ];
  for (const [at, text] of cases) assert.equal(stamp(at.getTime(), now), text, at.toString());
});

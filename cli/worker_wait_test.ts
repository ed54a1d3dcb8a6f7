import assert from "node:assert/strict";
import { builtinRunningLine } from "./worker_wait.ts";

Deno.test("builtinRunningLine() ends with a colon only when function ids follow", () => {
  const cases: [number, string][] = [
    [0, '✓ "engine-http" is running in the engine (no functions of its own)'],
    [1, '✓ "engine-http" is running in the engine with 1 function:'],
    [7, '✓ "engine-http" is running in the engine with 7 functions:'],
  ];
  for (const [functions, line] of cases) {
    assert.equal(builtinRunningLine("engine-http", functions), line);
  }
});

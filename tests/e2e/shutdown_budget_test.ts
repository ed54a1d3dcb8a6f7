/**
 * SIGTERM to an engine in its worst realistic state (shutdown_budget_stack.ts:
 * an HTTP request held by a handler, a streamed response, a TypeScript and a
 * Python SDK worker mid-call, a worker ignoring SIGTERM, engine-state and
 * engine-queue on a Redis that stopped answering) exits within its
 * `shutdown_timeout_ms` (8 s by default, under docker's 10 s), cutting off
 * what runs out of its share with a warning naming it, and exits 1.
 *
 * The one timing assert of the suite: stopping such an engine took 21.6 s
 * before the budget (each step in series, engine-queue waiting for Redis's
 * 10 s command time-out). The bound is the budget plus 5 s, generous for a
 * loaded 2-core CI machine, yet well below that.
 */
import assert from "node:assert/strict";
import { startBudgetStack } from "./shutdown_budget_stack.ts";

const BUDGET_MS = 8000;

Deno.test("SIGTERM: the worst realistic engine exits within shutdown_timeout_ms, naming what it cut off", async () => {
  const stack = await startBudgetStack();
  try {
    const from = Date.now();
    const status = await stack.engine.kill("SIGTERM");
    const took = Date.now() - from;
    const log = stack.engine.lines.join("\n");
    assert.ok(took < BUDGET_MS + 5000, `the engine took ${took} ms to stop:\n${log}`);
    assert.equal(status.code, 1, log);
    assert.match(
      log,
      /Shutdown: built-in worker "engine-http" cut off .*2 calls it made in flight/,
    );
    assert.match(log, /Shutdown: local worker "stubborn" cut off with SIGKILL after \d+ ms/);
    assert.match(
      log,
      /Shutdown: built-in worker "engine-(state|queue)" cut off .*1 call it was running/,
    );
    assert.match(log, /Engine stopped: \d+ step\(s\) cut off/);
  } finally {
    await stack.close();
  }
});

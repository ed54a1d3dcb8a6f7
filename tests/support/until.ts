/**
 * Test support: waiting for a condition that no event announces (a list the
 * engine answers, a count), by asking again every 20 ms.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Frame, RawWorker } from "./raw_worker.ts";

/** Resolves once `check()` holds, trying again every 20 ms; fails naming `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How many replicas of function `id` the engine lists (`engine::functions::list`), 0 if none. */
export async function replicasOf(caller: RawWorker, id: string): Promise<number> {
  const listed = (await caller.call("engine::functions::list", {})).result.functions;
  return listed.find((f: Frame) => f.function_id === id)?.replicas ?? 0;
}

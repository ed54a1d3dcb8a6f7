/**
 * Test support shared by the queue worker's tests that run a real engine in
 * this process (`functions_test.ts`, `e2e_test.ts`).
 *
 * @module
 */

import type { RunningEngine } from "../../engine/engine.ts";

/** Resolves once the queue worker has logged `count` messages becoming dead letters. */
export function deadLetterLogs(
  engine: Pick<RunningEngine, "logs">,
  count: number,
): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  let seen = 0;
  const unsubscribe = engine.logs.ring.subscribe((entry) => {
    if (!/is now a dead letter/.test(entry.message) || ++seen < count) return;
    unsubscribe();
    resolve();
  });
  return promise;
}

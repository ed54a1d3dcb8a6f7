/**
 * What happens to a message after one delivery: the pure part of the
 * delivery loop, with time passed in.
 *
 * - Success: the message is acknowledged (deleted).
 * - Failure or time-out: it is retried after `backoff_ms * 2^(n-1)` (capped
 *   at `max_backoff_ms`), `n` being its failed deliveries so far, until
 *   `max_attempts` deliveries have failed; then it becomes a dead letter
 *   with the last error.
 * - Its function is not registered: it waits without using an attempt, and
 *   is looked at again after `backoff_ms`, kept between
 *   {@link FUNCTION_WAIT_MIN_MS} and {@link FUNCTION_WAIT_MAX_MS}.
 *
 * @module
 */

import type { ErrorBody } from "../../engine/api.ts";
import type { QueueSettings } from "./config.ts";

/** The shortest wait before a message whose function is missing is looked at again. */
export const FUNCTION_WAIT_MIN_MS = 100;
/** The longest such wait: a worker that comes back gets its messages within this. */
export const FUNCTION_WAIT_MAX_MS = 1000;

/** How one delivery ended. */
export type DeliveryOutcome =
  | { ok: true }
  | {
    ok: false;
    error: ErrorBody;
    /** True when no worker provides the target function. */
    functionMissing: boolean;
  };

/** What to do with the message next. */
export type Verdict =
  | { kind: "ack" }
  | { kind: "retry"; attempts: number; visibleAt: number; lastError: ErrorBody }
  | { kind: "wait"; attempts: number; visibleAt: number; lastError: ErrorBody }
  | { kind: "bury"; attempts: number; lastError: ErrorBody; failedAt: number };

/** The delay before the retry that follows `failed` failed deliveries (1 or more). */
export function backoffDelay(settings: QueueSettings, failed: number): number {
  const delay = settings.backoff_ms * 2 ** Math.max(0, failed - 1);
  return Math.min(settings.max_backoff_ms, delay);
}

/** How long a message whose function is missing waits before it is looked at again. */
export function functionWaitDelay(settings: QueueSettings): number {
  return Math.min(FUNCTION_WAIT_MAX_MS, Math.max(FUNCTION_WAIT_MIN_MS, settings.backoff_ms));
}

/**
 * The verdict on a delivery of a message that had `attemptsBefore` failed
 * deliveries, ending with `outcome` at `now`.
 */
export function decide(
  outcome: DeliveryOutcome,
  attemptsBefore: number,
  settings: QueueSettings,
  now: number,
): Verdict {
  if (outcome.ok) return { kind: "ack" };
  if (outcome.functionMissing) {
    return {
      kind: "wait",
      attempts: attemptsBefore,
      visibleAt: now + functionWaitDelay(settings),
      lastError: outcome.error,
    };
  }
  const attempts = attemptsBefore + 1;
  if (attempts >= settings.max_attempts) {
    return { kind: "bury", attempts, lastError: outcome.error, failedAt: now };
  }
  return {
    kind: "retry",
    attempts,
    visibleAt: now + backoffDelay(settings, attempts),
    lastError: outcome.error,
  };
}

import assert from "node:assert/strict";
import { QUEUE_DEFAULTS, type QueueSettings } from "./config.ts";
import {
  backoffDelay,
  decide,
  FUNCTION_WAIT_MAX_MS,
  FUNCTION_WAIT_MIN_MS,
  functionWaitDelay,
} from "./retry.ts";

const settings: QueueSettings = {
  ...QUEUE_DEFAULTS,
  max_attempts: 4,
  backoff_ms: 1000,
  max_backoff_ms: 5000,
};
const NOW = 1_000_000;
const boom = { code: "invocation_failed", message: "boom" };

Deno.test("backoffDelay() doubles from backoff_ms and stops at max_backoff_ms", () => {
  const cases: [failed: number, delay: number][] = [[1, 1000], [2, 2000], [3, 4000], [4, 5000], [
    40,
    5000,
  ]];
  for (const [failed, delay] of cases) {
    assert.equal(backoffDelay(settings, failed), delay, `${failed}`);
  }
  assert.equal(backoffDelay({ ...settings, backoff_ms: 0 }, 3), 0);
});

Deno.test("functionWaitDelay() follows backoff_ms within its bounds", () => {
  const cases: [backoff: number, wait: number][] = [
    [0, FUNCTION_WAIT_MIN_MS],
    [250, 250],
    [60_000, FUNCTION_WAIT_MAX_MS],
  ];
  for (const [backoff_ms, wait] of cases) {
    assert.equal(functionWaitDelay({ ...settings, backoff_ms }), wait, `${backoff_ms}`);
  }
});

Deno.test("decide() acks, retries, buries at max_attempts, and waits for a missing function", () => {
  const failed = { ok: false as const, error: boom, functionMissing: false };
  const cases = [
    { name: "success", outcome: { ok: true as const }, before: 2, verdict: { kind: "ack" } },
    {
      name: "first failure",
      outcome: failed,
      before: 0,
      verdict: { kind: "retry", attempts: 1, visibleAt: NOW + 1000, lastError: boom },
    },
    {
      name: "third failure",
      outcome: failed,
      before: 2,
      verdict: { kind: "retry", attempts: 3, visibleAt: NOW + 4000, lastError: boom },
    },
    {
      name: "last allowed failure",
      outcome: failed,
      before: 3,
      verdict: { kind: "bury", attempts: 4, lastError: boom, failedAt: NOW },
    },
    {
      name: "missing function",
      outcome: { ok: false as const, error: boom, functionMissing: true },
      before: 3,
      verdict: {
        kind: "wait",
        attempts: 3,
        visibleAt: NOW + FUNCTION_WAIT_MAX_MS,
        lastError: boom,
      },
    },
  ];
  for (const c of cases) {
    assert.deepEqual(decide(c.outcome, c.before, settings, NOW), c.verdict, c.name);
  }
  // max_attempts 1: the first failure is final.
  assert.equal(decide(failed, 0, { ...settings, max_attempts: 1 }, NOW).kind, "bury");
});

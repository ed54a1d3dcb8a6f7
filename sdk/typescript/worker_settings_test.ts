import assert from "node:assert/strict";
import { registerWorker } from "./mod.ts";
import { workerSettings } from "./worker_settings.ts";
import type { WorkerOptions } from "./types.ts";

const URL = "ws://127.0.0.1:1";

Deno.test("registerWorker() refuses a number option it cannot use, naming the option and the value", () => {
  // Each was accepted and broke the worker later: NaN or a string made every call's time-out
  // never fire, 0 made the heartbeat a busy loop, NaN made reconnects a tight loop.
  const cases: [options: Record<string, unknown>, message: string][] = [
    [
      { invocationTimeoutMs: Number.NaN },
      'Invalid option "invocationTimeoutMs": expected a number above 0, got NaN',
    ],
    [
      { invocationTimeoutMs: "5000" },
      'Invalid option "invocationTimeoutMs": expected a number above 0, got "5000"',
    ],
    [
      { invocationTimeoutMs: -1 },
      'Invalid option "invocationTimeoutMs": expected a number above 0, got -1',
    ],
    [
      { heartbeatIntervalMs: 0 },
      'Invalid option "heartbeatIntervalMs": expected a number above 0, got 0',
    ],
    [
      { idleTimeoutMs: Infinity },
      'Invalid option "idleTimeoutMs": expected a number above 0, got Infinity',
    ],
    [
      { handshakeTimeoutMs: -5 },
      'Invalid option "handshakeTimeoutMs": expected a number above 0, got -5',
    ],
    [
      { maxMessageSize: 1.5 },
      'Invalid option "maxMessageSize": expected a whole number of bytes above 0, got 1.5',
    ],
    [
      { reconnect: { initialDelayMs: Number.NaN } },
      'Invalid option "reconnect.initialDelayMs": expected a number of at least 0, got NaN',
    ],
    [
      { reconnect: { maxDelayMs: -1 } },
      'Invalid option "reconnect.maxDelayMs": expected a number of at least 0, got -1',
    ],
    [
      { reconnect: { backoffMultiplier: 0.5 } },
      'Invalid option "reconnect.backoffMultiplier": expected a number of at least 1, got 0.5',
    ],
    [
      { reconnect: { jitterFactor: 2 } },
      'Invalid option "reconnect.jitterFactor": expected a number from 0 to 1, got 2',
    ],
    [
      { worker_name: 5 },
      'Invalid option "worker_name": expected a string, got 5',
    ],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => registerWorker(URL, options as WorkerOptions),
      (err: Error) => {
        assert.ok(err instanceof TypeError, message);
        assert.equal(err.message, message);
        return true;
      },
    );
  }
});

Deno.test("workerSettings() takes the edge values of every number option", () => {
  const settings = workerSettings(URL, {
    invocationTimeoutMs: 1,
    heartbeatIntervalMs: 1,
    idleTimeoutMs: 1,
    handshakeTimeoutMs: 1,
    maxMessageSize: 1,
    reconnect: { initialDelayMs: 0, maxDelayMs: 0, backoffMultiplier: 1, jitterFactor: 0 },
  });
  assert.equal(settings.invocationTimeoutMs, 1);
  assert.deepEqual(settings.connection.reconnect, {
    initialDelayMs: 0,
    maxDelayMs: 0,
    backoffMultiplier: 1,
    jitterFactor: 0,
  });
  assert.equal(
    workerSettings(URL, { reconnect: { jitterFactor: 1 } }).connection.reconnect
      .jitterFactor,
    1,
  );
});

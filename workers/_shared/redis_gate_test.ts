import assert from "node:assert/strict";
import { BLIP_MS, type GateTimers, RedisGate } from "./redis_gate.ts";

/** Timers that fire only when the test says so. */
function manualTimers(): GateTimers & { fire(): void; pending(): number } {
  const timers = new Map<number, () => void>();
  let next = 1;
  return {
    setTimeout(callback, ms) {
      assert.equal(ms, BLIP_MS);
      timers.set(next, callback);
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire() {
      const due = [...timers.values()];
      timers.clear();
      for (const callback of due) callback();
    },
    pending: () => timers.size,
  };
}

function gate() {
  const timers = manualTimers();
  const failures: string[] = [];
  const g = new RedisGate({
    timers,
    onFailure: (cause, established) =>
      void failures.push(`${established ? "new" : "more"} ${cause}`),
  });
  return { g, timers, failures };
}

Deno.test("RedisGate lets a lost connection be made again within the blip's wait without an outage", () => {
  const { g, timers, failures } = gate();
  g.lost(() => "lost");
  g.lost(() => "lost again"); // one wait per loss
  assert.equal(timers.pending(), 1);
  assert.equal(g.cause, undefined);
  g.ready();
  assert.equal(timers.pending(), 0);
  assert.deepEqual(failures, []);
});

Deno.test("RedisGate establishes an outage when a reconnect attempt fails, and ends it when ready", () => {
  const { g, timers, failures } = gate();
  g.lost(() => "lost");
  g.failed("connect ECONNREFUSED 127.0.0.1:6379");
  assert.equal(timers.pending(), 0);
  assert.equal(g.cause, "connect ECONNREFUSED 127.0.0.1:6379");
  g.lost(() => "lost"); // ioredis reconnecting again: still the same outage
  assert.equal(timers.pending(), 0);
  g.failed("getaddrinfo ENOTFOUND h");
  assert.equal(g.cause, "getaddrinfo ENOTFOUND h");
  g.ready();
  assert.equal(g.cause, undefined);
  assert.deepEqual(failures, [
    "new connect ECONNREFUSED 127.0.0.1:6379",
    "more getaddrinfo ENOTFOUND h",
  ]);
});

Deno.test("RedisGate establishes an outage when the connection is not back within the blip's wait", () => {
  const { g, timers, failures } = gate();
  g.lost(() => "the connection was lost");
  timers.fire();
  assert.equal(g.cause, "the connection was lost");
  assert.deepEqual(failures, ["new the connection was lost"]);
});

Deno.test("RedisGate.close() leaves no timer behind", () => {
  const { g, timers } = gate();
  g.lost(() => "lost");
  g.close();
  assert.equal(timers.pending(), 0);
});

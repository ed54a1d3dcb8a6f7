/**
 * An engine whose state and queues live in Redis, Redis stopped under a
 * burst of calls and the queue's polling: every call fails with an error
 * naming Redis, while the log gets a few lines per worker, not one per
 * failure; Redis started again: one line per worker says so.
 */

import assert from "node:assert/strict";
import type { BuiltinWorker, LogEntry } from "../../engine/api.ts";
import { startEngine } from "../../engine/engine.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { type RedisServer, startRedisServer } from "../../tests/support/redis_server.ts";
import { queueWorker } from "../queue/mod.ts";
import { stateWorker } from "../state/mod.ts";

const WORKERS = ["engine-state", "engine-queue"];
const CALLS = 150;

Deno.test("Redis stopped under load: a few log lines per worker, each call still failing with its own error, and one line when it is back", async () => {
  let redis: RedisServer = await startRedisServer();
  const engine = await startEngine({
    port: 0,
    builtins: [
      {
        worker: stateWorker as BuiltinWorker<never>,
        config: { adapter: "redis", url: redis.url } as never,
      },
      {
        worker: queueWorker as BuiltinWorker<never>,
        config: { adapter: "redis", url: redis.url, queues: { a: {}, b: {}, c: {} } } as never,
      },
    ],
  });
  const ofWorkers = (entries: LogEntry[]) => entries.filter((e) => WORKERS.includes(e.source));
  try {
    const api = engine.builtinApi("engine");
    const start = engine.logs.query().length;
    await redis.stop();
    const calls = [];
    for (let i = 0; i < CALLS; i++) {
      calls.push(api.call("state::set", { scope: "s", key: `k${i}`, value: i }));
      calls.push(
        api.call("engine::queue::enqueue", { queue: "a", function_id: "f::g", data: { i } }),
      );
      calls.push(api.call("engine::queue::dead_letters", { queue: "b" }));
    }
    const outcomes = await Promise.allSettled(calls);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.match(
        String(outcome.reason?.message),
        /Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable: /,
      );
    }
    const during = ofWorkers(engine.logs.query().slice(start));
    const show = during.map((e) => `${e.level} [${e.source}] ${e.message}`).join("\n");
    for (const worker of WORKERS) {
      const lines = during.filter((e) => e.source === worker);
      // The outage's first line; a reminder at most (15 s apart) on a slow machine.
      assert.ok(lines.length >= 1 && lines.length <= 2, show);
      assert.match(lines[0]!.message, /^Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable: \S/);
      assert.equal(lines[0]!.level, "error");
    }

    redis = await startRedisServer({ port: redis.port });
    const back = () =>
      ofWorkers(engine.logs.query().slice(start)).filter((e) =>
        /is reachable again after/.test(e.message)
      );
    await eventually(
      () => WORKERS.every((worker) => back().some((e) => e.source === worker)),
      "both workers to log that Redis is back",
      30_000,
    );
    // Served again. Once, on a loaded host, a call failed with ECONNREFUSED after its worker had
    // logged that Redis was back (a second outage of that connection, logged and recovered the
    // same way), so the call is retried until it is over.
    await eventually(
      () =>
        api.call("state::set", { scope: "s", key: "after", value: 1 }).then(
          () => true,
          () => false,
        ),
      "state::set to work again",
      30_000,
    );
    // Every outage line is followed by a recovery line: each worker's last says Redis is back.
    const lastOf = (worker: string) =>
      ofWorkers(engine.logs.query().slice(start)).filter((e) => e.source === worker).at(-1);
    await eventually(
      () =>
        WORKERS.every((worker) =>
          /is reachable again after \d+ s: \d+ calls? failed meanwhile$/.test(
            lastOf(worker)?.message ?? "",
          )
        ),
      "each worker's last line to say Redis is back",
      30_000,
    );
  } finally {
    await engine.stop();
    await redis.stop();
  }
});

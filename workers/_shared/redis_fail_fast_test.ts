/**
 * Commands during a Redis outage fail at once with the unreachable error
 * instead of waiting in ioredis's offline queue up to the command time-out
 * (10 s for the built-in workers); a blip (the connection broken and made
 * again at once) fails nothing; Redis back, commands go through again.
 */

import assert from "node:assert/strict";
import type { Redis } from "ioredis";
import type { Logger } from "../../engine/api.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { type RedisServer, startRedisServer } from "../../tests/support/redis_server.ts";
import { settlesWithin } from "../../tests/support/settles.ts";
import { startRedisProxy } from "../state/adapters/_redis_proxy.ts";
import { closeRedis, connectRedis } from "./redis.ts";

/** The command time-out of the built-in workers' Redis adapters. */
const COMMAND_TIMEOUT_MS = 10_000;
const BATCH = 200;
/** Well under the command time-out, and loose enough for a loaded machine. */
const AT_ONCE_MS = 5000;

function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const log = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { log: log as unknown as Logger, lines };
}

/** Sends {@link BATCH} commands at once; their outcomes, failing when they take {@link AT_ONCE_MS}. */
function batch(redis: Redis, what: string): Promise<PromiseSettledResult<unknown>[]> {
  const commands = Array.from({ length: BATCH }, (_, i) => redis.incr(`n${i % 10}`));
  return settlesWithin(Promise.allSettled(commands), AT_ONCE_MS, what);
}

function assertAllUnreachable(outcomes: PromiseSettledResult<unknown>[], url: string): void {
  for (const outcome of outcomes) {
    assert.equal(outcome.status, "rejected");
    assert.match(
      String((outcome as PromiseRejectedResult).reason?.message),
      new RegExp(`^Redis at ${url}/? is unreachable: \\S`),
    );
  }
}

Deno.test("connectRedis() fails commands at once during an outage, batch after batch, and serves again once Redis is back", async () => {
  let server: RedisServer = await startRedisServer();
  const { log, lines } = recordingLog();
  const redis = await connectRedis({ url: server.url, log, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  try {
    await redis.set("k", "1");
    await server.stop();
    await eventually(() => lines.some((l) => l.startsWith("error ")), "the outage's log line");
    // Before, each batch waited for ioredis to give up (every fourth reconnect attempt, ~10 s
    // apart once its backoff reached 5 s) or for the command time-out: the second took ~10 s.
    for (let i = 1; i <= 3; i++) {
      assertAllUnreachable(await batch(redis, `batch ${i} during the outage`), server.url);
    }
    assert.match(lines.join("\n"), /ECONNREFUSED/);

    server = await startRedisServer({ port: server.port });
    await eventually(
      () => lines.some((l) => /^info Redis at .* is reachable again/.test(l)),
      "the connection to be back",
    );
    const outcomes = await batch(redis, "the batch once Redis is back");
    assert.deepEqual(outcomes.filter((o) => o.status === "rejected"), []);
    assert.equal(await redis.get("n0"), String(BATCH / 10));
  } finally {
    await closeRedis(redis);
    await server.stop();
  }
});

Deno.test("connectRedis() lets commands wait through a blip: the connection broken and made again at once", async () => {
  const server = await startRedisServer();
  const { log, lines } = recordingLog();
  const redis = await connectRedis({ url: server.url, log, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  const admin = await connectRedis({ url: server.url });
  try {
    await redis.set("k", "1");
    const lost = new Promise((resolve) => redis.once("close", resolve));
    await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    await lost;
    // Issued while ioredis reconnects: they wait for it, as before.
    assert.notEqual(redis.status, "ready");
    const outcomes = await batch(redis, "the batch during the blip");
    assert.deepEqual(outcomes.filter((o) => o.status === "rejected"), []);
    assert.equal(await redis.get("n0"), String(BATCH / 10));
    assert.deepEqual(lines, []);
  } finally {
    await closeRedis(admin);
    await closeRedis(redis);
    await server.stop();
  }
});

Deno.test("connectRedis() waits for a reconnect that hangs only briefly, then fails commands at once until it is ready", async () => {
  const server = await startRedisServer();
  const proxy = startRedisProxy(server.port);
  const { log, lines } = recordingLog();
  const redis = await connectRedis({ url: proxy.url, log, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  const admin = await connectRedis({ url: server.url });
  try {
    await redis.set("k", "1");
    // The next connection is made, but Redis's answers to its set-up never arrive.
    proxy.hold();
    const lost = new Promise((resolve) => redis.once("close", resolve));
    await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    await lost;
    // Before, these waited for the command time-out.
    assertAllUnreachable(await batch(redis, "the batch waiting for the reconnect"), proxy.url);
    assert.match(lines[0] ?? "", /^error Redis at .* is unreachable: /);
    assertAllUnreachable(await batch(redis, "the batch after the wait ran out"), proxy.url);

    proxy.release();
    await eventually(async () => {
      try {
        return (await redis.get("k")) === "1";
      } catch {
        return false;
      }
    }, "the connection to be ready");
    const outcomes = await batch(redis, "the batch once ready");
    assert.deepEqual(outcomes.filter((o) => o.status === "rejected"), []);
  } finally {
    await closeRedis(admin);
    await closeRedis(redis);
    await proxy.stop();
    await server.stop();
  }
});

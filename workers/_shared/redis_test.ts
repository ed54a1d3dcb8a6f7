import assert from "node:assert/strict";
import { settlesWithin } from "../../tests/support/settles.ts";
import { startRedisServer } from "../../tests/support/redis_server.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { closeRedis, connectRedis, redactUrl } from "./redis.ts";
import type { BuiltinWorker, Logger } from "../../engine/api.ts";
import { startEngine } from "../../engine/engine.ts";
import { stateWorker } from "../state/mod.ts";
import { queueWorker } from "../queue/mod.ts";

function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const log = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { log: log as unknown as Logger, lines };
}

Deno.test("connectRedis() fails a command with the URL and the cause while Redis is down, and works again once it is back", async () => {
  let server = await startRedisServer();
  const { log, lines } = recordingLog();
  const redis = await connectRedis({ url: server.url, log });
  try {
    await redis.set("k", "1");
    await server.stop();
    await assert.rejects(
      redis.get("k"),
      (error: Error) => {
        assert.match(
          error.message,
          new RegExp(`^Redis at ${server.url}/? is unreachable: .*ECONNREFUSED`),
        );
        assert.doesNotMatch(error.message, /maxRetriesPerRequest/);
        return true;
      },
    );
    server = await startRedisServer({ port: server.port });
    await eventually(async () => {
      try {
        return (await redis.set("k", "2")) === "OK";
      } catch {
        return false;
      }
    }, "the connection to come back");
    await eventually(
      () => lines.some((l) => /^info Redis at .* is reachable again after \d+ s: /.test(l)),
      "the log line",
    );
    assert.equal(
      lines.filter((l) => /^error Redis at .* is unreachable: .*ECONNREFUSED/.test(l)).length,
      1,
      lines.join("\n"),
    );
  } finally {
    await closeRedis(redis);
    await server.stop();
  }
});

Deno.test("connectRedis() does not send, once Redis is back, a command that timed out waiting for it", async () => {
  let server = await startRedisServer();
  const { log } = recordingLog();
  const redis = await connectRedis({ url: server.url, log, commandTimeoutMs: 300 });
  try {
    await server.stop();
    // Queued while the connection is down, it times out before ioredis gives up reconnecting.
    await assert.rejects(redis.set("k", "late"), /Redis at .* is unreachable|did not answer/);
    server = await startRedisServer({ port: server.port });
    await eventually(async () => {
      try {
        return (await redis.set("other", "1")) === "OK";
      } catch {
        return false;
      }
    }, "the connection to come back");
    // Its caller was told it failed: it must not take effect after all (the new server is empty).
    assert.equal(await redis.get("k"), null);
  } finally {
    await closeRedis(redis);
    await server.stop();
  }
});

Deno.test("connectRedis() with a wrong password says so, not 'Connection is closed.'", async () => {
  const server = await startRedisServer({ password: "right-secret" });
  const url = server.url.replace("redis://", "redis://:wrong-secret@");
  try {
    await assert.rejects(connectRedis({ url }), (error: Error) => {
      assert.match(
        error.message,
        /^Cannot connect to Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/?: /,
      );
      assert.match(error.message, /AUTH|password/i);
      assert.match(error.message, /: check the user and password in "url"/);
      assert.doesNotMatch(error.message, /wrong-secret|Connection is closed/);
      return true;
    });
  } finally {
    await server.stop();
  }
});

Deno.test("connectRedis() to a server requiring a password, without one, says to give it in the URL", async () => {
  const server = await startRedisServer({ password: "right-secret" });
  try {
    await assert.rejects(connectRedis({ url: server.url }), (error: Error) => {
      assert.match(
        error.message,
        /^Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/?: NOAUTH /,
      );
      assert.match(error.message, /: the server requires a password: give it in "url"/);
      return true;
    });
  } finally {
    await server.stop();
  }
});

Deno.test("connectRedis() refuses a database the server does not have, instead of using database 0", async () => {
  const server = await startRedisServer();
  try {
    await assert.rejects(connectRedis({ url: `${server.url}/99` }), (error: Error) => {
      assert.match(
        error.message,
        /^Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/99: ERR DB index/,
      );
      assert.match(
        error.message,
        /: the server has no database 99 \(the number after the host in "url"/,
      );
      return true;
    });
    const redis = await connectRedis({ url: `${server.url}/15` });
    await redis.set("k", "in 15");
    await closeRedis(redis);
  } finally {
    await server.stop();
  }
});

Deno.test("connectRedis() refuses a database that is not a number, or an unknown parameter, before connecting", async () => {
  const cases: [string, RegExp][] = [
    [
      "redis://:pw@127.0.0.1:1/abc",
      /: it must name the database after the host as a number .*, not "abc"$/,
    ],
    [
      "redis://127.0.0.1:1?db=x",
      /: it must name the database after the host as a number .*, not "x"$/,
    ],
    [
      "redis://:pw@127.0.0.1:1?connectTimeout=1",
      /: it must not have the parameter "connectTimeout": /,
    ],
  ];
  for (const [url, problem] of cases) {
    await assert.rejects(connectRedis({ url }), (error: Error) => {
      assert.match(error.message, /^Invalid Redis URL redis:\/\/.*: it must /);
      assert.match(error.message, problem);
      assert.doesNotMatch(error.message, /:pw@/);
      return true;
    });
  }
});

Deno.test("connectRedis() with rediss:// to a server without TLS says so, not just 'connect ETIMEDOUT'", async () => {
  const server = await startRedisServer();
  const url = server.url.replace("redis://", "rediss://");
  try {
    await assert.rejects(connectRedis({ url, connectTimeoutMs: 500 }), (error: Error) => {
      assert.match(
        error.message,
        /^Cannot connect to Redis at rediss:\/\/127\.0\.0\.1:\d+\/?: .*: "url" asks for TLS \(rediss:\/\/\) but the server at 127\.0\.0\.1:\d+ answers without TLS: use redis:\/\//,
      );
      return true;
    });
  } finally {
    await server.stop();
  }
});

// The command time-out of the built-in workers is 10 s: a close that waited
// for Redis's goodbye that long would fail these bounds.
const PROMPTLY_MS = 5000;

/**
 * A real Redis that can hang: `freeze()` stops its process (SIGSTOP), so
 * connections stay open and nothing is answered, not even QUIT; `stop()`
 * lets it go on and stops it.
 */
async function startFreezableRedis(): Promise<
  { url: string; freeze(): void; stop(): Promise<void> }
> {
  const server = await startRedisServer();
  const admin = await connectRedis({ url: server.url });
  const info = await admin.info("server");
  admin.disconnect();
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  assert.ok(pid > 0, info);
  let frozen = false;
  return {
    url: server.url,
    freeze() {
      Deno.kill(pid, "SIGSTOP");
      frozen = true;
    },
    async stop() {
      if (frozen) Deno.kill(pid, "SIGCONT");
      await server.stop();
    },
  };
}

Deno.test("closeRedis() on a Redis that stops answering drops the connection without waiting out the command time-out", async () => {
  const server = await startFreezableRedis();
  const redis = await connectRedis({ url: server.url, commandTimeoutMs: 60_000 });
  try {
    await redis.set("k", "1");
    server.freeze();
    const ended = new Promise((resolve) => redis.once("end", resolve));
    await settlesWithin(closeRedis(redis), PROMPTLY_MS, "closeRedis()");
    // The socket was dropped, not left to a later command time-out.
    await settlesWithin(ended, PROMPTLY_MS, "the connection's end");
  } finally {
    redis.disconnect();
    await server.stop();
  }
});

const REDIS_WORKERS = [stateWorker, queueWorker] as BuiltinWorker<never>[];

for (const worker of REDIS_WORKERS) {
  Deno.test(`${worker.name} on a Redis that stops answering lets the engine stop promptly`, async () => {
    const server = await startFreezableRedis();
    const engine = await startEngine({
      port: 0,
      builtins: [{ worker, config: { adapter: "redis", url: server.url } as never }],
    });
    let stopped = false;
    try {
      // Started (startEngine waits for its built-in workers), so connected.
      assert.ok(engine.builtinNames().includes(worker.name));
      server.freeze();
      await settlesWithin(engine.stop(), PROMPTLY_MS, "engine stop");
      stopped = true;
    } finally {
      await server.stop();
      if (!stopped) await engine.stop();
    }
  });
}

Deno.test("redactUrl() hides the password only", () => {
  assert.equal(redactUrl("redis://u:pw@h:1/2"), "redis://u:***@h:1/2");
  assert.equal(redactUrl("redis://h:1"), "redis://h:1");
});

import assert from "node:assert/strict";
import { startRedisServer } from "../../tests/support/redis_server.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { closeRedis, connectRedis, redactUrl } from "./redis.ts";
import type { Logger } from "../../engine/api.ts";

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
      () => lines.some((l) => /^info Redis connection at .* is back$/.test(l)),
      "the log line",
    );
    assert.ok(
      lines.some((l) => /^warn Redis connection trouble at .*ECONNREFUSED/.test(l)),
      lines.join("\n"),
    );
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
      assert.doesNotMatch(error.message, /wrong-secret|Connection is closed/);
      return true;
    });
  } finally {
    await server.stop();
  }
});

Deno.test("redactUrl() hides the password only", () => {
  assert.equal(redactUrl("redis://u:pw@h:1/2"), "redis://u:***@h:1/2");
  assert.equal(redactUrl("redis://h:1"), "redis://h:1");
});

/**
 * What only the Redis adapter meets: a database it shares with other
 * applications, whose keys may fall under its `state:` prefix.
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { startRedisServer } from "../../../tests/support/redis_server.ts";
import { RedisStore } from "./redis.ts";

Deno.test("RedisStore: another application's key under the prefix is not a scope", async () => {
  const server = await startRedisServer();
  const other = new Redis(server.url);
  const store = await RedisStore.connect({ url: server.url, maxValueBytes: 1 << 20 });
  try {
    await other.set("state:cache", "not a hash");
    await other.rpush("state:jobs", "a");
    await store.set("users", "u1", { name: "Ada" });
    assert.deepEqual(await store.listGroups(), ["users"]);
    await assert.rejects(
      () => Promise.resolve(store.list("cache")),
      /Scope "cache" cannot be used: Redis key "state:cache" holds a string, not a hash of state/,
    );
    await assert.rejects(
      () => Promise.resolve(store.set("jobs", "k", 1)),
      /Scope "jobs" cannot be used: Redis key "state:jobs" holds a list, not a hash of state/,
    );
    assert.equal(await other.get("state:cache"), "not a hash", "the foreign key is left alone");
  } finally {
    await store.close();
    other.disconnect();
    await server.stop();
  }
});

/**
 * What the shared adapters meet: a database other programs write to, whose
 * keys may fall under the state's own (Redis: the `state:` prefix; SQLite:
 * the `state_entries` table).
 */
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { startRedisServer } from "../../../tests/support/redis_server.ts";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { parseOps } from "../update_ops.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";

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

Deno.test("RedisStore works for a Redis user whose ACL allows only the keys under state:", async () => {
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  let store: RedisStore | undefined;
  try {
    await admin.call("ACL", "SETUSER", "state-only", "on", ">secret", "~state:*", "+@all");
    store = await RedisStore.connect({
      url: `redis://state-only:secret@127.0.0.1:${server.port}`,
      maxValueBytes: 1 << 20,
    });
    assert.deepEqual(await store.set("users", "u1", { visits: 0 }), {
      created: true,
      oldValue: null,
    });
    const increment = parseOps([{ type: "increment", path: "visits", by: 1 }]);
    if (!increment.ok) throw new Error(increment.problem);
    assert.deepEqual((await store.update("users", "u1", increment.ops)).newValue, { visits: 1 });
    assert.deepEqual(await store.listGroups(), ["users"]);
    assert.deepEqual(await store.delete("users", "u1"), { existed: true, oldValue: { visits: 1 } });
  } finally {
    await store?.close();
    admin.disconnect();
    await server.stop();
  }
});

Deno.test("A stored text that is not JSON reads as that text, and the scope still lists", async (t) => {
  await t.step("redis", async () => {
    const server = await startRedisServer();
    const other = new Redis(server.url);
    const store = await RedisStore.connect({ url: server.url, maxValueBytes: 1 << 20 });
    try {
      await store.set("users", "u1", { name: "Ada" });
      await other.hset("state:users", "u2", "not json {");
      assert.equal(await store.get("users", "u2"), "not json {");
      assert.deepEqual(await store.list("users"), [
        { key: "u1", value: { name: "Ada" } },
        { key: "u2", value: "not json {" },
      ]);
      assert.deepEqual(await store.set("users", "u2", 1), {
        created: false,
        oldValue: "not json {",
      });
    } finally {
      await store.close();
      other.disconnect();
      await server.stop();
    }
  });
  await t.step("sqlite", async () => {
    const dir = await Deno.makeTempDir({ prefix: "state-foreign-" });
    const path = join(dir, "state.db");
    const store = SqliteStore.open({ path, maxValueBytes: 1 << 20 });
    try {
      store.set("users", "u1", { name: "Ada" });
      const other = new DatabaseSync(path);
      other.prepare("INSERT INTO state_entries (scope, key, value) VALUES (?, ?, ?)").run(
        "users",
        "u2",
        "not json {",
      );
      other.close();
      assert.equal(store.get("users", "u2"), "not json {");
      assert.deepEqual(store.list("users"), [
        { key: "u1", value: { name: "Ada" } },
        { key: "u2", value: "not json {" },
      ]);
      assert.equal(
        store.update("users", "u2", [{ type: "set", path: [], value: 2 }]).oldValue,
        "not json {",
      );
    } finally {
      store.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
});

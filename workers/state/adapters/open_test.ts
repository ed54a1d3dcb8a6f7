import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../config.ts";
import { freePort } from "../../../tests/support/ports.ts";
import { startRedisServer } from "../../../tests/support/redis_server.ts";
import { openStore } from "./open.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";

Deno.test("openStore() opens SQLite at a path relative to the base folder, creating its folders", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await openStore(parseConfig({ path: "./deep/er/state.db" }), { baseDir: dir });
    assert.equal(store.adapter, "sqlite");
    await store.set("s", "k", 1);
    await store.close();
    assert.ok(existsSync(join(dir, "deep", "er", "state.db")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openStore() opens the memory and Redis adapters the config names", async () => {
  const memory = await openStore(parseConfig({ adapter: "memory" }), { baseDir: "/nonexistent" });
  assert.equal(memory.adapter, "memory");
  await memory.close();
  const server = await startRedisServer();
  try {
    const redis = await openStore(parseConfig({ adapter: "redis", url: server.url }), {
      baseDir: "/nonexistent",
    });
    assert.equal(redis.adapter, "redis");
    await redis.close();
  } finally {
    await server.stop();
  }
});

Deno.test("SqliteStore.open() names the file when it cannot open it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const blocker = join(dir, "file");
    await Deno.writeTextFile(blocker, "not a folder");
    const path = join(blocker, "state.db");
    assert.throws(
      () => SqliteStore.open({ path, maxValueBytes: 1024 }),
      (error: unknown) =>
        error instanceof Error &&
        error.message.startsWith(`Cannot open the state database "${path}": `),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RedisStore.connect() rejects when Redis does not answer, without showing the password", async () => {
  const port = freePort();
  await assert.rejects(
    () => RedisStore.connect({ url: `redis://:hunter2@127.0.0.1:${port}`, maxValueBytes: 1024 }),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(
        error.message,
        new RegExp(`^Cannot connect to Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: `),
      );
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    },
  );
});

Deno.test("SqliteStore.open() of a path that is a folder says so", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.throws(
      () => SqliteStore.open({ path: dir, maxValueBytes: 1024 }),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(
          error.message,
          new RegExp(`^Cannot open the state database "${dir}": .*: it is a folder, not a file$`),
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

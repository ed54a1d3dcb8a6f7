import assert from "node:assert/strict";
import { z } from "zod";
import { stateWorker } from "./mod.ts";

Deno.test("stateWorker.parseConfig() fills every default", () => {
  const expected = {
    adapter: "sqlite",
    path: "./data/state.db",
    synchronous: "normal",
    url: "redis://localhost:6379",
    max_value_bytes: 1_048_576,
    max_list_bytes: 33_554_432,
  };
  assert.deepEqual(stateWorker.parseConfig(undefined), expected);
  assert.deepEqual(stateWorker.parseConfig(null), expected);
  assert.deepEqual(stateWorker.parseConfig({}), expected);
});

Deno.test("stateWorker.parseConfig() accepts the reference configuration and each adapter", () => {
  assert.equal(stateWorker.parseConfig(stateWorker.defaultConfig).adapter, "sqlite");
  assert.equal(stateWorker.parseConfig({ adapter: "memory" }).adapter, "memory");
  const redis = stateWorker.parseConfig({
    adapter: "redis",
    url: "rediss://:secret@cache.internal:6380/2",
  });
  assert.equal(redis.url, "rediss://:secret@cache.internal:6380/2");
  assert.equal(stateWorker.parseConfig({ max_value_bytes: 10 }).max_value_bytes, 10);
});

const refused: [string, unknown, string[]][] = [
  ["an unknown key", { adapter: "sqlite", pth: "x" }, []],
  ["an unknown adapter", { adapter: "kv" }, ["adapter"]],
  ["an empty path", { path: "" }, ["path"]],
  ["a URL that is not redis", { adapter: "redis", url: "http://localhost:6379" }, ["url"]],
  ["a zero max_value_bytes", { max_value_bytes: 0 }, ["max_value_bytes"]],
  ["a fractional max_value_bytes", { max_value_bytes: 1.5 }, ["max_value_bytes"]],
  ["a string max_value_bytes", { max_value_bytes: "1MB" }, ["max_value_bytes"]],
  ["an unknown synchronous mode", { synchronous: "off" }, ["synchronous"]],
];

for (const [name, raw, path] of refused) {
  Deno.test(`stateWorker.parseConfig() refuses ${name}, naming the field`, () => {
    assert.throws(() => stateWorker.parseConfig(raw), (error: unknown) => {
      assert.ok(error instanceof z.ZodError);
      assert.deepEqual(error.issues[0]?.path, path);
      if (name === "an unknown key") assert.match(error.issues[0]?.message ?? "", /pth/);
      return true;
    });
  });
}

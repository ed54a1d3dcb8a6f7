/**
 * One suite of cases for the StateStore contract, run against every adapter:
 * memory, SQLite (in a temporary folder) and Redis (a real `redis-server`
 * started here on a free port).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CallError } from "../../../engine/api.ts";
import {
  folderHarness,
  memoryHarness,
  redisHarness,
  type StoreBackend,
  type StoreCase,
  storeConformance,
} from "../../../tests/support/store_conformance.ts";
import { parseOps } from "../update_ops.ts";
import type { UpdateOp } from "../update_ops.ts";
import type { JsonValue } from "../values.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { StateStore } from "./store.ts";

/** Stores over a back end, opened with a value size limit. */
type Backend = StoreBackend<StateStore, { maxValueBytes?: number; maxListBytes?: number }>;

type Case = StoreCase<Backend, StateStore>;

const LIMIT = 1024 * 1024;

function ops(raw: unknown[]): UpdateOp[] {
  const parsed = parseOps(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.ops;
}

async function opened(backend: Backend, stores: StateStore[], maxValueBytes = LIMIT) {
  const store = await backend.open({ maxValueBytes });
  stores.push(store);
  return store;
}

const cases: Record<string, Case> = {
  "get() of a missing key is undefined": async (backend, stores) => {
    const store = await opened(backend, stores);
    assert.equal(await store.get("users", "nobody"), undefined);
  },

  "set() stores every kind of JSON value and get() returns it": async (backend, stores) => {
    const store = await opened(backend, stores);
    const values: JsonValue[] = [
      { name: "Ada", tags: ["a", "b"], nested: { deep: [1, { x: null }] } },
      [1, "two", false],
      "text with \u00e9 and \u{1f600}",
      42.5,
      true,
      null,
      {},
    ];
    for (const [i, value] of values.entries()) await store.set("kinds", `k${i}`, value);
    for (const [i, value] of values.entries()) {
      assert.deepEqual(await store.get("kinds", `k${i}`), value);
    }
  },

  "set() reports whether it created the key and the value it replaced": async (backend, stores) => {
    const store = await opened(backend, stores);
    assert.deepEqual(await store.set("users", "u1", { v: 1 }), { created: true, oldValue: null });
    assert.deepEqual(await store.set("users", "u1", { v: 2 }), {
      created: false,
      oldValue: { v: 1 },
    });
    assert.deepEqual(await store.get("users", "u1"), { v: 2 });
  },

  "a stored null is a value, not a missing key": async (backend, stores) => {
    const store = await opened(backend, stores);
    await store.set("s", "k", null);
    assert.equal(await store.get("s", "k"), null);
    assert.deepEqual(await store.set("s", "k", 1), { created: false, oldValue: null });
    assert.deepEqual(await store.list("s"), [{ key: "k", value: 1 }]);
  },

  "set() refuses a value over the limit with VALUE_TOO_LARGE and keeps the old one": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores, 100);
    await store.set("s", "k", "small");
    await assert.rejects(
      async () => await store.set("s", "k", "x".repeat(200)),
      (error: unknown) => {
        assert.ok(error instanceof CallError);
        assert.equal(error.code, "VALUE_TOO_LARGE");
        assert.equal(
          error.message,
          'Value for scope "s" key "k" is 202 bytes: the limit is 100 bytes (max_value_bytes)',
        );
        return true;
      },
    );
    // Multi-byte characters count as their UTF-8 bytes: 40 x 3 bytes + 2 quotes.
    await assert.rejects(
      async () => await store.set("s", "k", "\u20ac".repeat(40)),
      /is 122 bytes/,
    );
    assert.equal(await store.get("s", "k"), "small");
  },

  "values handed out are copies": async (backend, stores) => {
    const store = await opened(backend, stores);
    const value = { list: [1] };
    await store.set("s", "k", value);
    value.list.push(2);
    const read = await store.get("s", "k") as { list: number[] };
    read.list.push(3);
    assert.deepEqual(await store.get("s", "k"), { list: [1] });
  },

  "delete() returns the removed value, and says when there was none": async (backend, stores) => {
    const store = await opened(backend, stores);
    await store.set("s", "k", { a: 1 });
    assert.deepEqual(await store.delete("s", "k"), { existed: true, oldValue: { a: 1 } });
    assert.equal(await store.get("s", "k"), undefined);
    assert.deepEqual(await store.delete("s", "k"), { existed: false, oldValue: null });
    await store.set("s", "n", null);
    assert.deepEqual(await store.delete("s", "n"), { existed: true, oldValue: null });
  },

  "list() returns one scope's entries sorted by key": async (backend, stores) => {
    const store = await opened(backend, stores);
    for (const key of ["b", "a", "c", "B"]) await store.set("letters", key, key.toUpperCase());
    await store.set("other", "a", 0);
    assert.deepEqual(await store.list("letters"), [
      { key: "B", value: "B" },
      { key: "a", value: "A" },
      { key: "b", value: "B" },
      { key: "c", value: "C" },
    ]);
    assert.deepEqual(await store.list("nothing-here"), []);
  },

  "listGroups() lists scopes with values, sorted, and forgets emptied ones": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.deepEqual(await store.listGroups(), []);
    await store.set("users", "u1", 1);
    await store.set("orders", "o1", 1);
    await store.set("orders", "o2", 2);
    assert.deepEqual(await store.listGroups(), ["orders", "users"]);
    await store.delete("users", "u1");
    assert.deepEqual(await store.listGroups(), ["orders"]);
  },

  "scopes and keys are literal strings, punctuation included": async (backend, stores) => {
    const store = await opened(backend, stores);
    const names = ["a:b", "a/b", "a.b", "a*b?[c]", "\u00fcn\u00efc\u00f8de", " spaced ", "%2F"];
    for (const scope of names) {
      for (const key of names) await store.set(scope, key, `${scope}|${key}`);
    }
    for (const scope of names) {
      for (const key of names) assert.equal(await store.get(scope, key), `${scope}|${key}`);
    }
    assert.deepEqual(await store.listGroups(), [...names].sort());
    assert.deepEqual((await store.list("a.b")).map((e) => e.key), [...names].sort());
  },

  "update() applies ops in order and reports the old and new value": async (backend, stores) => {
    const store = await opened(backend, stores);
    const first = await store.update("c", "k", ops([{ type: "increment", path: "n", by: 2 }]));
    assert.deepEqual(first, {
      written: true,
      created: true,
      oldValue: null,
      newValue: { n: 2 },
      errors: [],
    });
    const second = await store.update(
      "c",
      "k",
      ops([
        { type: "merge", value: { name: "Ada" } },
        { type: "append", path: "log", value: "x" },
        { type: "decrement", path: "n", by: 5 },
        { type: "remove", path: "name" },
        { type: "set", path: "flag", value: true },
      ]),
    );
    assert.deepEqual(second.oldValue, { n: 2 });
    assert.deepEqual(second.newValue, { n: -3, log: "x", flag: true });
    assert.equal(second.created, false);
    assert.deepEqual(await store.get("c", "k"), { n: -3, log: "x", flag: true });
  },

  "update() lists failed ops and applies the rest": async (backend, stores) => {
    const store = await opened(backend, stores);
    await store.set("c", "k", { n: "text" });
    const outcome = await store.update(
      "c",
      "k",
      ops([{ type: "increment", path: "n", by: 1 }, { type: "set", path: "ok", value: 1 }]),
    );
    assert.deepEqual(outcome.newValue, { n: "text", ok: 1 });
    assert.deepEqual(outcome.errors.map((e) => [e.op_index, e.code]), [[
      0,
      "increment.not_number",
    ]]);
    assert.deepEqual(await store.get("c", "k"), { n: "text", ok: 1 });
  },

  "update() whose ops all fail writes nothing": async (backend, stores) => {
    const store = await opened(backend, stores);
    const outcome = await store.update(
      "c",
      "missing",
      ops([{ type: "set", path: "__proto__", value: 1 }]),
    );
    assert.deepEqual(outcome.written, false);
    assert.deepEqual(outcome.newValue, null);
    assert.equal(outcome.errors[0]?.code, "set.path.proto_polluted");
    assert.equal(await store.get("c", "missing"), undefined);
    assert.deepEqual(await store.listGroups(), []);
  },

  "update() refuses a result over the limit and keeps the old value": async (backend, stores) => {
    const store = await opened(backend, stores, 50);
    await store.set("c", "k", "start");
    await assert.rejects(
      async () => await store.update("c", "k", ops([{ type: "append", value: "y".repeat(60) }])),
      (error: unknown) => error instanceof CallError && error.code === "VALUE_TOO_LARGE",
    );
    assert.equal(await store.get("c", "k"), "start");
  },

  "100 concurrent increments add exactly 100": async (backend, stores) => {
    const store = await opened(backend, stores);
    const increment = ops([{ type: "increment", path: "count", by: 1 }]);
    await Promise.all(Array.from({ length: 100 }, () => store.update("c", "k", increment)));
    assert.deepEqual(await store.get("c", "k"), { count: 100 });
  },

  "100 concurrent increments through two stores on one back end add exactly 100": {
    sharedOnly: true,
    run: async (
      backend,
      stores,
    ) => {
      const one = await opened(backend, stores);
      const two = await opened(backend, stores);
      const increment = ops([{ type: "increment", path: "", by: 1 }]);
      await Promise.all(
        Array.from(
          { length: 100 },
          (_, i) => (i % 2 === 0 ? one : two).update("c", "k", increment),
        ),
      );
      assert.equal(await one.get("c", "k"), 100);
      assert.equal(await two.get("c", "k"), 100);
    },
  },

  "values survive closing and reopening the store": {
    sharedOnly: true,
    run: async (backend, stores) => {
      const first = await backend.open({ maxValueBytes: LIMIT });
      await first.set("users", "u1", { name: "Ada" });
      await first.update("users", "u2", ops([{ type: "increment", path: "", by: 7 }]));
      await first.close();
      const second = await opened(backend, stores);
      assert.deepEqual(await second.get("users", "u1"), { name: "Ada" });
      assert.equal(await second.get("users", "u2"), 7);
      assert.deepEqual(await second.listGroups(), ["users"]);
    },
  },
};

cases["list() over maxListBytes fails with LIST_TOO_LARGE naming the scope and the limit"] = async (
  backend,
  stores,
) => {
  const store = await backend.open({ maxValueBytes: LIMIT, maxListBytes: 110 });
  stores.push(store);
  // Each entry is 2 bytes of key and 32 of JSON text: three fit, a fourth does not.
  for (const key of ["k1", "k2", "k3"]) await store.set("big", key, "x".repeat(30));
  assert.equal((await store.list("big")).length, 3);
  await store.set("big", "k4", "x".repeat(30));
  await assert.rejects(
    async () => await store.list("big"),
    (error: unknown) => {
      assert.ok(error instanceof CallError);
      assert.equal(error.code, "LIST_TOO_LARGE");
      assert.equal(
        error.message,
        'Scope "big" is over 110 bytes of keys and values (over 136 bytes in its first 4 entries): ' +
          "a list answers at most 110 bytes (max_list_bytes); raise the limit, or spread the values over more scopes",
      );
      return true;
    },
  );
};

const conformance = storeConformance("StateStore", cases);

conformance("memory", () =>
  memoryHarness((): Backend => ({
    shared: false,
    open: (options) => Promise.resolve(new MemoryStore({ maxValueBytes: LIMIT, ...options })),
  })));

conformance("sqlite", () =>
  folderHarness("state-sqlite-", (dir): Backend => ({
    shared: true,
    open: (options) =>
      Promise.resolve(
        SqliteStore.open({ path: join(dir, "state.db"), maxValueBytes: LIMIT, ...options }),
      ),
  })));

conformance("redis", () =>
  redisHarness((url): Backend => ({
    shared: true,
    open: (options) => RedisStore.connect({ url, maxValueBytes: LIMIT, ...options }),
  })));

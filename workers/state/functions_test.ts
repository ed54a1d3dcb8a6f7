import assert from "node:assert/strict";
import { CallError, type InvocationContext, type Logger } from "../../engine/api.ts";
import { MemoryStore } from "./adapters/memory.ts";
import { SqliteStore } from "./adapters/sqlite.ts";
import type { StateStore } from "./adapters/store.ts";
import { createStateFunctions } from "./functions.ts";
import type { StateEvent } from "./triggers.ts";

const silent: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silent,
};

function setup(store: StateStore = new MemoryStore({ maxValueBytes: 1024 })) {
  const events: StateEvent[] = [];
  const functions = createStateFunctions({ store, log: silent, onChange: (e) => events.push(e) });
  const call = async (id: string, payload: unknown) => {
    const fn = functions[id];
    if (fn === undefined) throw new Error(`No function "${id}"`);
    const ctx: InvocationContext = {
      functionId: id,
      invocationId: "test",
      signal: new AbortController().signal,
    };
    return await fn.handler(payload, ctx);
  };
  return { call, events, store };
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof CallError, `expected a CallError, got ${error}`);
    assert.deepEqual({ code: error.code, message: error.message }, { code, message });
    return true;
  });
}

Deno.test("state::set returns the old value and state::get the stored one", async () => {
  const { call } = setup();
  assert.deepEqual(
    await call("state::set", { scope: "users", key: "u1", value: { name: "Ada" } }),
    {
      old_value: null,
      new_value: { name: "Ada" },
    },
  );
  assert.deepEqual(
    await call("state::set", { scope: "users", key: "u1", value: { name: "Bob" } }),
    {
      old_value: { name: "Ada" },
      new_value: { name: "Bob" },
    },
  );
  assert.deepEqual(await call("state::get", { scope: "users", key: "u1" }), { name: "Bob" });
  assert.equal(await call("state::get", { scope: "users", key: "nobody" }), null);
});

Deno.test("state::set accepts the reference's data alias for value", async () => {
  const { call } = setup();
  await call("state::set", { scope: "s", key: "k", data: [1, 2] });
  assert.deepEqual(await call("state::get", { scope: "s", key: "k" }), [1, 2]);
});

Deno.test("state::set, update and delete emit change events; reads do not", async () => {
  const { call, events } = setup();
  await call("state::set", { scope: "s", key: "k", value: 1 });
  await call("state::set", { scope: "s", key: "k", value: 1 });
  await call("state::update", {
    scope: "s",
    key: "k",
    ops: [{ type: "increment", path: "", by: 2 }],
  });
  await call("state::update", {
    scope: "s",
    key: "n",
    ops: [{ type: "set", path: "a", value: true }],
  });
  await call("state::get", { scope: "s", key: "k" });
  await call("state::list", { scope: "s" });
  await call("state::delete", { scope: "s", key: "k" });
  await call("state::delete", { scope: "s", key: "k" });
  assert.deepEqual(events.map((e) => [e.event_type, e.key, e.old_value, e.new_value]), [
    ["state:created", "k", null, 1],
    ["state:updated", "k", 1, 1],
    ["state:updated", "k", 1, 3],
    ["state:created", "n", null, { a: true }],
    ["state:deleted", "k", 3, null],
  ]);
  assert.ok(events.every((e) => e.type === "state" && e.scope === "s"));
});

Deno.test("state::delete returns the removed value, or null", async () => {
  const { call } = setup();
  await call("state::set", { scope: "s", key: "k", value: { a: 1 } });
  assert.deepEqual(await call("state::delete", { scope: "s", key: "k" }), { a: 1 });
  assert.equal(await call("state::delete", { scope: "s", key: "k" }), null);
});

Deno.test("state::update returns old and new values, with errors only when some op failed", async () => {
  const { call } = setup();
  assert.deepEqual(
    await call("state::update", {
      scope: "s",
      key: "k",
      ops: [{ type: "increment", path: "n", by: 1 }],
    }),
    { old_value: null, new_value: { n: 1 } },
  );
  const result = await call("state::update", {
    scope: "s",
    key: "k",
    ops: [{ type: "append", path: "n", value: 1 }, { type: "increment", path: "n", by: 1 }],
  }) as Record<string, unknown>;
  assert.deepEqual(result.new_value, { n: 2 });
  assert.deepEqual(result.errors, [{
    op_index: 0,
    code: "append.type_mismatch",
    message: 'Cannot append to "n": it holds a number, not an array, a string or null',
  }]);
});

Deno.test("state::list, list_keys and list_groups", async () => {
  const { call } = setup();
  await call("state::set", { scope: "b", key: "y", value: 2 });
  await call("state::set", { scope: "b", key: "x", value: 1 });
  await call("state::set", { scope: "a", key: "z", value: 0 });
  assert.deepEqual(await call("state::list", { scope: "b" }), [1, 2]);
  assert.deepEqual(await call("state::list_keys", { scope: "b" }), [{ key: "x", value: 1 }, {
    key: "y",
    value: 2,
  }]);
  assert.deepEqual(await call("state::list", { scope: "none" }), []);
  assert.deepEqual(await call("state::list_groups", {}), { groups: ["a", "b"] });
  assert.deepEqual(await call("state::list_groups", undefined), { groups: ["a", "b"] });
});

const badInputs: [string, unknown, string, string][] = [
  [
    "state::get",
    undefined,
    "INVALID_ARGUMENT",
    'the payload must be an object with "scope" and "key", got none',
  ],
  [
    "state::get",
    [],
    "INVALID_ARGUMENT",
    'the payload must be an object with "scope" and "key", got an array',
  ],
  [
    "state::get",
    { key: "k" },
    "INVALID_ARGUMENT",
    '"scope" must be a non-empty string: it is missing',
  ],
  [
    "state::set",
    { scope: "", key: "k", value: 1 },
    "INVALID_ARGUMENT",
    '"scope" must be a non-empty string: it is empty',
  ],
  [
    "state::set",
    { scope: "s", key: 7, value: 1 },
    "INVALID_ARGUMENT",
    '"key" must be a non-empty string: got a number',
  ],
  [
    "state::set",
    { scope: "s", key: "k" },
    "INVALID_ARGUMENT",
    '"value" is required (send null to store null)',
  ],
  [
    "state::set",
    { scope: "s", key: "k", value: { f: () => 1 } },
    "INVALID_ARGUMENT",
    '"value.f" is not JSON: it is a function',
  ],
  [
    "state::set",
    { scope: "s", key: "k", value: [1, NaN] },
    "INVALID_ARGUMENT",
    '"value[1]" is not JSON: NaN is not a finite number',
  ],
  [
    "state::set",
    { scope: "s", key: "k", value: new Date(0) },
    "INVALID_ARGUMENT",
    '"value" is not JSON: it is an instance of Date',
  ],
  [
    "state::set",
    { scope: "s", key: "k", value: 10n },
    "INVALID_ARGUMENT",
    '"value" is not JSON: it is a bigint',
  ],
  [
    "state::set",
    { scope: "s", key: "a\ud800", value: 1 },
    "INVALID_ARGUMENT",
    '"key" must be well-formed Unicode: it holds a lone surrogate \\ud800 at index 1',
  ],
  [
    "state::list",
    { scope: "\ud83d\ude00\udc00" },
    "INVALID_ARGUMENT",
    '"scope" must be well-formed Unicode: it holds a lone surrogate \\udc00 at index 2',
  ],
  [
    "state::set",
    { scope: "s", key: "k\u0000z", value: 1 },
    "INVALID_ARGUMENT",
    '"key" must not contain the NUL character: it holds one at index 1',
  ],
  [
    "state::list_keys",
    { scope: "a\u0000" },
    "INVALID_ARGUMENT",
    '"scope" must not contain the NUL character: it holds one at index 1',
  ],
  [
    "state::delete",
    { scope: "s", key: "" },
    "INVALID_ARGUMENT",
    '"key" must be a non-empty string: it is empty',
  ],
  [
    "state::update",
    { scope: "s", key: "k" },
    "INVALID_ARGUMENT",
    '"ops" must be an array of operations',
  ],
  [
    "state::update",
    {
      scope: "s",
      key: "k",
      ops: [{ type: "set", path: "a", value: 1 }, { type: "pow", path: "a" }],
    },
    "INVALID_OP",
    '"ops[1].type" is "pow": the known ops are "set", "merge", "increment", "decrement", "append", "remove"',
  ],
  [
    "state::list",
    { scope: null },
    "INVALID_ARGUMENT",
    '"scope" must be a non-empty string: got null',
  ],
  [
    "state::list_keys",
    "s",
    "INVALID_ARGUMENT",
    'the payload must be an object with "scope", got a string',
  ],
];

for (const [fn, payload, code, problem] of badInputs) {
  Deno.test(`${fn} refuses bad input (${problem}) and changes nothing`, async () => {
    const { call, events } = setup();
    await call("state::set", { scope: "s", key: "k", value: "before" });
    events.length = 0;
    await rejectsWith(call(fn, payload), code, `Invalid input for ${fn}: ${problem}`);
    assert.equal(await call("state::get", { scope: "s", key: "k" }), "before");
    assert.deepEqual(events, []);
  });
}

Deno.test("state::set of a key with a lone surrogate leaves SQLite's U+FFFD key alone", async () => {
  // SQLite stores text as UTF-8, where "\ud800" and "\udc00" both become "\ufffd".
  const dir = await Deno.makeTempDir({ prefix: "state-surrogate-" });
  const store = SqliteStore.open({ path: `${dir}/state.db`, maxValueBytes: 1024 });
  try {
    const { call } = setup(store);
    await call("state::set", { scope: "s", key: "\ufffd", value: "kept" });
    for (const key of ["\ud800", "\udc00"]) {
      await assert.rejects(call("state::set", { scope: "s", key, value: "other" }), {
        code: "INVALID_ARGUMENT",
      });
    }
    assert.deepEqual(await call("state::list_keys", { scope: "s" }), [
      { key: "\ufffd", value: "kept" },
    ]);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("state::set of names with a NUL character is refused: SQLite would list them cut at the NUL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "state-nul-" });
  const store = SqliteStore.open({ path: `${dir}/state.db`, maxValueBytes: 1024 });
  try {
    const { call } = setup(store);
    await call("state::set", { scope: "s", key: "k", value: "kept" });
    await assert.rejects(call("state::set", { scope: "s", key: "k\u0000z", value: "other" }), {
      code: "INVALID_ARGUMENT",
    });
    await assert.rejects(call("state::set", { scope: "s\u0000t", key: "k", value: "other" }), {
      code: "INVALID_ARGUMENT",
    });
    assert.deepEqual(await call("state::list_keys", { scope: "s" }), [
      { key: "k", value: "kept" },
    ]);
    assert.deepEqual(await call("state::list_groups", {}), { groups: ["s"] });
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("state::set refuses a value over max_value_bytes, naming the size and the limit", async () => {
  const { call, events } = setup(new MemoryStore({ maxValueBytes: 1_048_576 }));
  await rejectsWith(
    call("state::set", { scope: "users", key: "u1", value: "x".repeat(1_999_998) }),
    "VALUE_TOO_LARGE",
    'Value for scope "users" key "u1" is 2,000,000 bytes: the limit is 1,048,576 bytes (max_value_bytes)',
  );
  assert.equal(await call("state::get", { scope: "users", key: "u1" }), null);
  assert.deepEqual(events, []);
});

Deno.test("errors quote unusual names unambiguously and shorten long ones", async () => {
  const { call, store } = setup(new MemoryStore({ maxValueBytes: 4 }));
  await rejectsWith(
    call("state::set", { scope: 's"x', key: "a\nb", value: "too long" }),
    "VALUE_TOO_LARGE",
    'Value for scope "s\\"x" key "a\\nb" is 10 bytes: the limit is 4 bytes (max_value_bytes)',
  );
  await rejectsWith(
    call("state::set", { scope: "s", key: "k".repeat(1000), value: "too long" }),
    "VALUE_TOO_LARGE",
    `Value for scope "s" key "${
      "k".repeat(80)
    }…" (1,000 characters) is 10 bytes: the limit is 4 bytes (max_value_bytes)`,
  );
  await store.close();
  await rejectsWith(
    call("state::get", { scope: "s", key: 'say "hi"' }),
    "GET_ERROR",
    'Cannot read scope "s" key "say \\"hi\\"": The memory state store is closed',
  );
});

Deno.test("an adapter failure becomes a CallError with the function's error code", async () => {
  const store = new MemoryStore({ maxValueBytes: 1024 });
  const { call } = setup(store);
  await store.close();
  await rejectsWith(
    call("state::get", { scope: "s", key: "k" }),
    "GET_ERROR",
    'Cannot read scope "s" key "k": The memory state store is closed',
  );
  await rejectsWith(
    call("state::list_groups", {}),
    "LIST_GROUPS_ERROR",
    "Cannot list the scopes: The memory state store is closed",
  );
});

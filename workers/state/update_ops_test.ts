import assert from "node:assert/strict";
import { applyUpdateOps, parseOps, type UpdateOp } from "./update_ops.ts";
import type { JsonValue } from "./values.ts";

function ops(raw: unknown[]): UpdateOp[] {
  const parsed = parseOps(raw);
  if (!parsed.ok) throw new Error(`parseOps() refused ${JSON.stringify(raw)}: ${parsed.problem}`);
  return parsed.ops;
}

interface Row {
  name: string;
  /** The stored value; `undefined` for a missing key. */
  start: JsonValue | undefined;
  ops: unknown[];
  value: JsonValue;
  /** `op_index:code` of each error. */
  errors?: string[];
  applied?: number;
}

const big = "x".repeat(257);
const deepPath = Array.from({ length: 33 }, (_, i) => `p${i}`);
let deepValue: JsonValue = 1;
for (let i = 0; i < 17; i++) deepValue = { d: deepValue };
const manyKeys = Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`k${i}`, i]));

const rows: Row[] = [
  // set
  {
    name: "set replaces the whole value at the root",
    start: { a: 1 },
    ops: [{ type: "set", path: "", value: 5 }],
    value: 5,
  },
  {
    name: "set without a value stores null at the root",
    start: { a: 1 },
    ops: [{ type: "set", path: "" }],
    value: null,
  },
  {
    name: "set writes a first-level field",
    start: { a: 1 },
    ops: [{ type: "set", path: "b", value: [1] }],
    value: { a: 1, b: [1] },
  },
  {
    name: "set on a missing key starts from {}",
    start: undefined,
    ops: [{ type: "set", path: "a", value: 1 }],
    value: { a: 1 },
  },
  {
    name: "set treats dots as part of the key",
    start: {},
    ops: [{ type: "set", path: "a.b", value: 1 }],
    value: { "a.b": 1 },
  },
  {
    name: "set a field on a non-object fails",
    start: 3,
    ops: [{ type: "set", path: "a", value: 1 }],
    value: 3,
    errors: ["0:set.target_not_object"],
  },
  // merge
  {
    name: "merge is shallow at the root",
    start: { a: { x: 1 }, b: 2 },
    ops: [{ type: "merge", value: { a: { y: 2 } } }],
    value: { a: { y: 2 }, b: 2 },
  },
  {
    name: "merge on a missing key creates the object",
    start: undefined,
    ops: [{ type: "merge", path: "", value: { a: 1 } }],
    value: { a: 1 },
  },
  {
    name: "merge with a string path targets a first-level field",
    start: { s: { a: 1 } },
    ops: [{ type: "merge", path: "s", value: { b: 2 } }],
    value: { s: { a: 1, b: 2 } },
  },
  {
    name: "merge with a nested path creates and replaces intermediates",
    start: { a: 7 },
    ops: [{ type: "merge", path: ["a", "b"], value: { c: 1 } }],
    value: { a: { b: { c: 1 } } },
  },
  {
    name: "merge with an empty array path targets the root",
    start: {},
    ops: [{ type: "merge", path: [], value: { r: 1 } }],
    value: { r: 1 },
  },
  {
    name: "merge into a non-object root fails",
    start: [1],
    ops: [{ type: "merge", value: { a: 1 } }],
    value: [1],
    errors: ["0:merge.target_not_object"],
  },
  {
    name: "merge of a non-object fails",
    start: {},
    ops: [{ type: "merge", value: [1] }],
    value: {},
    errors: ["0:merge.value.not_an_object"],
  },
  {
    name: "merge of a __proto__ key fails",
    start: {},
    ops: [{ type: "merge", value: JSON.parse('{"__proto__":{"x":1}}') }],
    value: {},
    errors: ["0:merge.value.proto_polluted"],
  },
  {
    name: "merge of too many keys fails",
    start: {},
    ops: [{ type: "merge", value: manyKeys }],
    value: {},
    errors: ["0:merge.value.too_many_keys"],
  },
  {
    name: "merge of a value nested too deep fails",
    start: {},
    ops: [{ type: "merge", value: deepValue }],
    value: {},
    errors: ["0:merge.value.too_deep"],
  },
  {
    name: "merge through a constructor segment fails",
    start: {},
    ops: [{ type: "merge", path: ["a", "constructor"], value: {} }],
    value: {},
    errors: ["0:merge.path.proto_polluted"],
  },
  {
    name: "merge through an empty segment fails",
    start: {},
    ops: [{ type: "merge", path: ["a", ""], value: {} }],
    value: {},
    errors: ["0:merge.path.empty_segment"],
  },
  {
    name: "merge through a too deep path fails",
    start: {},
    ops: [{ type: "merge", path: deepPath, value: {} }],
    value: {},
    errors: ["0:merge.path.too_deep"],
  },
  // increment, decrement
  {
    name: "increment adds to a field",
    start: { n: 2 },
    ops: [{ type: "increment", path: "n", by: 3 }],
    value: { n: 5 },
  },
  {
    name: "increment of a missing field starts at 0",
    start: {},
    ops: [{ type: "increment", path: "n", by: 3 }],
    value: { n: 3 },
  },
  {
    name: "increment of a missing key at the root gives by",
    start: undefined,
    ops: [{ type: "increment", path: "", by: 4 }],
    value: 4,
  },
  {
    name: "increment works on floats",
    start: { n: 1.5 },
    ops: [{ type: "increment", path: "n", by: 2 }],
    value: { n: 3.5 },
  },
  {
    name: "increment of null fails",
    start: { n: null },
    ops: [{ type: "increment", path: "n", by: 1 }],
    value: { n: null },
    errors: ["0:increment.not_number"],
  },
  {
    name: "increment of a string fails",
    start: { n: "1" },
    ops: [{ type: "increment", path: "n", by: 1 }],
    value: { n: "1" },
    errors: ["0:increment.not_number"],
  },
  {
    name: "increment of an inherited name like toString treats it as missing",
    start: {},
    ops: [{ type: "increment", path: "toString", by: 1 }],
    value: { toString: 1 },
  },
  {
    name: "increment of an object root at the root fails",
    start: { a: 1 },
    ops: [{ type: "increment", path: "", by: 1 }],
    value: { a: 1 },
    errors: ["0:increment.not_number"],
  },
  {
    name: "increment a field of an array fails",
    start: [],
    ops: [{ type: "increment", path: "n", by: 1 }],
    value: [],
    errors: ["0:increment.target_not_object"],
  },
  {
    name: "increment past the largest number fails",
    start: { n: Number.MAX_VALUE },
    ops: [{ type: "increment", path: "n", by: Number.MAX_VALUE }],
    value: { n: Number.MAX_VALUE },
    errors: ["0:increment.overflow"],
  },
  {
    name: "decrement subtracts",
    start: { n: 5 },
    ops: [{ type: "decrement", path: "n", by: 3 }],
    value: { n: 2 },
  },
  {
    name: "decrement of a missing field gives -by",
    start: {},
    ops: [{ type: "decrement", path: "n", by: 3 }],
    value: { n: -3 },
  },
  {
    name: "decrement of a missing key at the root gives -by",
    start: undefined,
    ops: [{ type: "decrement", path: "", by: 2 }],
    value: -2,
  },
  {
    name: "decrement of a boolean fails",
    start: { n: true },
    ops: [{ type: "decrement", path: "n", by: 1 }],
    value: { n: true },
    errors: ["0:decrement.not_number"],
  },
  // append
  {
    name: "append pushes onto an array",
    start: { l: [1] },
    ops: [{ type: "append", path: "l", value: 2 }],
    value: { l: [1, 2] },
  },
  {
    name: "append concatenates strings",
    start: { s: "ab" },
    ops: [{ type: "append", path: "s", value: "c" }],
    value: { s: "abc" },
  },
  {
    name: "append a non-string to a string fails",
    start: { s: "ab" },
    ops: [{ type: "append", path: "s", value: 1 }],
    value: { s: "ab" },
    errors: ["0:append.type_mismatch"],
  },
  {
    name: "append to an object fails",
    start: { o: {} },
    ops: [{ type: "append", path: "o", value: 1 }],
    value: { o: {} },
    errors: ["0:append.type_mismatch"],
  },
  {
    name: "append to a missing field keeps a string a string",
    start: {},
    ops: [{ type: "append", path: "s", value: "x" }],
    value: { s: "x" },
  },
  {
    name: "append to a missing field starts an array",
    start: {},
    ops: [{ type: "append", path: "l", value: { k: 1 } }],
    value: { l: [{ k: 1 }] },
  },
  {
    name: "append to a null field starts an array",
    start: { l: null },
    ops: [{ type: "append", path: "l", value: 1 }],
    value: { l: [1] },
  },
  {
    name: "append to a missing nested leaf always starts an array",
    start: {},
    ops: [{ type: "append", path: ["a", "b"], value: "x" }],
    value: { a: { b: ["x"] } },
  },
  {
    name: "append at the root of a missing key keeps a string",
    start: undefined,
    ops: [{ type: "append", value: "hi" }],
    value: "hi",
  },
  {
    name: "append at the root of a missing key starts an array",
    start: undefined,
    ops: [{ type: "append", path: "", value: 1 }],
    value: [1],
  },
  {
    name: "append at the root of an empty object fails",
    start: {},
    ops: [{ type: "append", value: 1 }],
    value: {},
    errors: ["0:append.type_mismatch"],
  },
  {
    name: "append a field of a string root fails",
    start: "s",
    ops: [{ type: "append", path: "a", value: 1 }],
    value: "s",
    errors: ["0:append.target_not_object"],
  },
  {
    name: "append through a prototype segment fails",
    start: {},
    ops: [{ type: "append", path: ["prototype"], value: 1 }],
    value: {},
    errors: ["0:append.path.proto_polluted"],
  },
  // remove
  {
    name: "remove deletes a field",
    start: { a: 1, b: 2 },
    ops: [{ type: "remove", path: "a" }],
    value: { b: 2 },
  },
  {
    name: "remove of a missing field changes nothing",
    start: { b: 2 },
    ops: [{ type: "remove", path: "a" }],
    value: { b: 2 },
    applied: 1,
  },
  {
    name: "remove at the root gives null",
    start: { a: 1 },
    ops: [{ type: "remove", path: "" }],
    value: null,
  },
  {
    name: "remove a field of a number fails",
    start: 1,
    ops: [{ type: "remove", path: "a" }],
    value: 1,
    errors: ["0:remove.target_not_object"],
  },
  {
    name: "remove of __proto__ fails",
    start: {},
    ops: [{ type: "remove", path: "__proto__" }],
    value: {},
    errors: ["0:remove.path.proto_polluted"],
  },
  {
    name: "a field path segment over 256 bytes fails",
    start: {},
    ops: [{ type: "set", path: big, value: 1 }],
    value: {},
    errors: ["0:set.path.segment_too_long"],
  },
  // sequences
  {
    name: "ops apply in order, failed ones are skipped",
    start: { n: 1, s: "a" },
    ops: [
      { type: "increment", path: "n", by: 1 },
      { type: "increment", path: "s", by: 1 },
      { type: "append", path: "s", value: "b" },
      { type: "decrement", path: "n", by: 10 },
    ],
    value: { n: -8, s: "ab" },
    errors: ["1:increment.not_number"],
    applied: 3,
  },
  {
    name: "once an op applied, a root increment no longer treats the key as missing",
    start: undefined,
    ops: [{ type: "set", path: "a", value: 1 }, { type: "increment", path: "", by: 1 }],
    value: { a: 1 },
    errors: ["1:increment.not_number"],
  },
  { name: "no ops apply nothing", start: { a: 1 }, ops: [], value: { a: 1 }, applied: 0 },
];

for (const row of rows) {
  Deno.test(`applyUpdateOps(): ${row.name}`, () => {
    const result = applyUpdateOps(
      row.start === undefined ? undefined : structuredClone(row.start),
      ops(row.ops),
    );
    assert.deepEqual(result.value, row.value);
    assert.deepEqual(result.errors.map((e) => `${e.op_index}:${e.code}`), row.errors ?? []);
    assert.equal(result.applied, row.applied ?? row.ops.length - (row.errors?.length ?? 0));
    for (const error of result.errors) assert.ok(error.message.length > 0);
  });
}

Deno.test("applyUpdateOps(): a merge leaves Object.prototype alone", () => {
  applyUpdateOps({}, ops([{ type: "merge", path: ["a"], value: { polluted: true } }]));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("applyUpdateOps(): error messages name the field and the types", () => {
  const { errors } = applyUpdateOps({ n: "x" }, ops([{ type: "increment", path: "n", by: 1 }]));
  assert.equal(errors[0]?.message, 'Cannot increment "n": it holds a string, not a number');
});

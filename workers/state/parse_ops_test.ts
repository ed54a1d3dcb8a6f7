import assert from "node:assert/strict";
import { parseOps, type UpdateOp } from "./update_ops.ts";

function ops(raw: unknown[]): UpdateOp[] {
  const parsed = parseOps(raw);
  if (!parsed.ok) throw new Error(`parseOps() refused ${JSON.stringify(raw)}: ${parsed.problem}`);
  return parsed.ops;
}

interface BadRow {
  name: string;
  ops: unknown;
  code: "INVALID_ARGUMENT" | "INVALID_OP";
  problem: string;
}

const badRows: BadRow[] = [
  {
    name: "ops that are not an array",
    ops: { type: "set" },
    code: "INVALID_ARGUMENT",
    problem: '"ops" must be an array of operations',
  },
  {
    name: "missing ops",
    ops: undefined,
    code: "INVALID_ARGUMENT",
    problem: '"ops" must be an array of operations',
  },
  {
    name: "an op that is not an object",
    ops: ["set"],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0]" must be an object with a "type"',
  },
  {
    name: "an unknown op type",
    ops: [{ type: "set", path: "", value: 1 }, { type: "multiply", path: "n" }],
    code: "INVALID_OP",
    problem:
      '"ops[1].type" is "multiply": the known ops are "set", "merge", "increment", "decrement", "append", "remove"',
  },
  {
    name: "an op without a type",
    ops: [{ path: "n" }],
    code: "INVALID_OP",
    problem:
      '"ops[0].type" is missing: the known ops are "set", "merge", "increment", "decrement", "append", "remove"',
  },
  {
    name: "a field op without a path",
    ops: [{ type: "remove" }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].path" must be a string ("" for the whole value)',
  },
  {
    name: "a field op with an array path",
    ops: [{ type: "set", path: ["a"], value: 1 }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].path" must be a string ("" for the whole value)',
  },
  {
    name: "an increment without by",
    ops: [{ type: "increment", path: "n" }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].by" must be a finite number',
  },
  {
    name: "an increment by a string",
    ops: [{ type: "increment", path: "n", by: "1" }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].by" must be a finite number',
  },
  {
    name: "a merge path with a number",
    ops: [{ type: "merge", path: ["a", 1], value: {} }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].path" must be a string or an array of strings',
  },
  {
    name: "an append without a value",
    ops: [{ type: "append", path: "l" }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].value" is required',
  },
  {
    name: "a value that is not JSON",
    ops: [{ type: "set", path: "a", value: () => 1 }],
    code: "INVALID_ARGUMENT",
    problem: '"ops[0].value" is not JSON: it is a function',
  },
];

for (const row of badRows) {
  Deno.test(`parseOps() refuses ${row.name}`, () => {
    assert.deepEqual(parseOps(row.ops), { ok: false, code: row.code, problem: row.problem });
  });
}

Deno.test("parseOps() normalizes paths to segments", () => {
  assert.deepEqual(
    ops([
      { type: "set", path: "", value: 1 },
      { type: "set", path: "a" },
      { type: "merge", value: {} },
      { type: "merge", path: "", value: {} },
      { type: "append", path: "x", value: 1 },
      { type: "append", path: ["x", "y"], value: 1 },
    ]).map((op) => op.path),
    [[], ["a"], [], [], ["x"], ["x", "y"]],
  );
});

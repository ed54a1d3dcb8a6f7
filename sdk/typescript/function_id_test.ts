import assert from "node:assert/strict";
import { validateFunctionId } from "./function_id.ts";
import { checkFunctionId } from "../../engine/protocol/ids.ts";

/** `length` characters long: `ns::` then as many `x` as it takes. */
function idOfLength(length: number): string {
  return "ns::" + "x".repeat(length - 4);
}

Deno.test("validateFunctionId() accepts ids up to 256 characters", () => {
  for (
    const id of ["orders::create", "a::b::c", "my-ns::do_it", idOfLength(255), idOfLength(256)]
  ) {
    assert.doesNotThrow(() => validateFunctionId(id), id);
  }
});

Deno.test("validateFunctionId() refuses longer ids with the engine's message", () => {
  for (const length of [257, 300, 10_000]) {
    const id = idOfLength(length);
    assert.throws(() => validateFunctionId(id), (err: Error) => {
      assert.ok(err instanceof TypeError);
      assert.equal(
        err.message,
        `Invalid function id "${id.slice(0, 64)}…": longer than 256 characters`,
      );
      assert.equal(err.message, checkFunctionId(id));
      return true;
    }, String(length));
  }
});

Deno.test("validateFunctionId() names malformed ids and non-strings", () => {
  const cases: [unknown, string][] = [
    ["orders", '"orders"'],
    ["orders.create", '"orders.create"'],
    ["a::b c", '"a::b c"'],
    ["", '""'],
    [42, "42"],
    [undefined, "undefined"],
  ];
  for (const [id, named] of cases) {
    assert.throws(() => validateFunctionId(id), (err: Error) => {
      assert.ok(err instanceof TypeError);
      assert.ok(err.message.startsWith(`Invalid function id ${named}: expected`), err.message);
      return true;
    }, String(id));
  }
});

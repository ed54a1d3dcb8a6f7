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

Deno.test("validateFunctionId() refuses malformed ids with the engine's message", () => {
  for (const id of ["orders", "orders.create", "a::b c", "", "::a", "a::", "a:::b"]) {
    assert.throws(() => validateFunctionId(id), (err: Error) => {
      assert.ok(err instanceof TypeError);
      assert.ok(err.message.startsWith(`Invalid function id "${id}": a function id is`));
      assert.equal(err.message, checkFunctionId(id));
      return true;
    }, id);
  }
});

Deno.test("validateFunctionId() names what it got instead of a string", () => {
  const cases: [unknown, string][] = [
    [42, "Invalid function id 42: expected a string, got number"],
    [undefined, "Invalid function id undefined: expected a string, got undefined"],
    [null, "Invalid function id null: expected a string, got object"],
  ];
  for (const [id, message] of cases) {
    assert.throws(() => validateFunctionId(id), { name: "TypeError", message }, String(id));
  }
});

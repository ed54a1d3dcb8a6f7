import assert from "node:assert/strict";
import { checkFunctionId } from "./ids.ts";

Deno.test("checkFunctionId() accepts namespaced ids and names the rule for others", () => {
  for (
    const id of ["orders::create", "a::b::c", "my-ns::do_it", "engine::workers::register", "A1::B2"]
  ) {
    assert.equal(checkFunctionId(id), undefined, id);
  }
  for (const id of ["orders", "::x", "a::", "a:::b", "a::b c", "a/b::c", "", "stream::get(x)"]) {
    assert.match(
      checkFunctionId(id)!,
      new RegExp(
        `Invalid function id "${id.replace(/[()]/g, "\\$&")}": a function id is two or more parts`,
      ),
      id,
    );
  }
});

import assert from "node:assert/strict";
import { parseTransport } from "./select.ts";

Deno.test("parseTransport() takes deno (the default) or native, and names the variable otherwise", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "deno"],
    ["", "deno"],
    ["deno", "deno"],
    ["native", "native"],
  ];
  for (const [value, expected] of cases) assert.equal(parseTransport(value), expected);
  for (const value of ["Native", "ws", " native"]) {
    assert.throws(
      () => parseTransport(value),
      new Error(`Invalid ENGINE_TRANSPORT ${JSON.stringify(value)}: expected "deno" or "native"`),
    );
  }
});

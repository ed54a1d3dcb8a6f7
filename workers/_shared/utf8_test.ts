import assert from "node:assert/strict";
import { overBytes, utf8Length } from "./utf8.ts";

Deno.test("utf8Length() agrees with TextEncoder, lone surrogates as U+FFFD", () => {
  const encoder = new TextEncoder();
  for (
    const text of ["", "abc", "é", "€uro", "😀", "a\uD800b", "\uDC00", "x".repeat(1000) + "😀"]
  ) {
    assert.equal(utf8Length(text), encoder.encode(text).length, JSON.stringify(text));
  }
});

Deno.test("overBytes() gives the size only when it is over the limit", () => {
  assert.equal(overBytes("abc", 3), undefined);
  assert.equal(overBytes("abcd", 3), 4);
  assert.equal(overBytes("éé", 4), undefined, "4 bytes: not over");
  assert.equal(overBytes("ééé", 4), 6);
  assert.equal(overBytes("€", 2), 3);
  assert.equal(overBytes("x".repeat(10), 100), undefined);
});

import assert from "node:assert/strict";
import { prettyJsonText } from "./json_text.ts";

Deno.test("prettyJsonText() lays out JSON as JSON.stringify(value, null, 2) does", async (t) => {
  const values: [string, unknown][] = [
    ["object", { a: 1, b: [true, null, "x"], c: { d: {} }, e: [] }],
    ["strings with brackets, quotes and escapes", { 's{"]': 'a\\"b,c:d\n', "": "[]" }],
    ["scalars", 5],
    ["null", null],
    ["nested lists", [[1, [2, []]], [{}]]],
    ["unicode", { "é": "😀\u2028" }],
  ];
  for (const [name, value] of values) {
    await t.step(name, () => {
      const expected = JSON.stringify(value, null, 2);
      assert.equal(prettyJsonText(JSON.stringify(value)), expected);
      assert.equal(prettyJsonText(JSON.stringify(value, null, "\t")), expected);
    });
  }
});

Deno.test("prettyJsonText() keeps numbers as written", () => {
  assert.equal(
    prettyJsonText('{"big":12345678901234567890, "huge": 1e400,"cents":1.50,"l":[ ]}'),
    '{\n  "big": 12345678901234567890,\n  "huge": 1e400,\n  "cents": 1.50,\n  "l": []\n}',
  );
});

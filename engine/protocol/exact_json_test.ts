import assert from "node:assert/strict";
import {
  exactInteger,
  exactlyParsed,
  exactlyParsedMember,
  isRawInteger,
  parseExact,
} from "./exact_json.ts";

Deno.test("parseExact() keeps integers beyond 2^53 digit for digit, and nothing else changes", () => {
  const cases: [string, string][] = [
    ['{"id":9007199254740993}', '{"id":9007199254740993}'],
    [
      "[12345678901234567890,-98765432109876543210]",
      "[12345678901234567890,-98765432109876543210]",
    ],
    ['{"a":{"b":[1,2,99999999999999999999]}}', '{"a":{"b":[1,2,99999999999999999999]}}'],
    // Digits inside a string are the string's.
    ['{"s":"12345678901234567890"}', '{"s":"12345678901234567890"}'],
  ];
  for (const [text, written] of cases) {
    assert.equal(JSON.stringify(parseExact(text)), written, text);
  }
  const value = parseExact('{"id":12345678901234567890,"n":7}') as { id: unknown; n: unknown };
  assert.ok(isRawInteger(value.id));
  assert.equal(value.n, 7);
  assert.throws(() => parseExact("{"), SyntaxError);
  assert.throws(() => parseExact('{"id":12345678901234567890'), SyntaxError);
});

Deno.test("exactInteger() is a number while a double holds it, a raw integer beyond", () => {
  assert.equal(exactInteger(42n), 42);
  assert.equal(exactInteger(-(2n ** 53n) + 1n), -9007199254740991);
  const big = exactInteger(2n ** 64n);
  assert.ok(isRawInteger(big));
  assert.equal(JSON.stringify({ big }), '{"big":18446744073709551616}');
});

Deno.test("exactlyParsed() keeps a value parsed already unless its text holds a long integer", () => {
  const plain = '{"n":1,"s":"x"}';
  const parsed = JSON.parse(plain);
  assert.equal(exactlyParsed(plain, parsed), parsed);
  const long = '{"id":9007199254740993}';
  assert.equal(JSON.stringify(exactlyParsed(long, JSON.parse(long))), long);
});

Deno.test("exactlyParsedMember() keeps a member parsed already unless the frame holds a long integer", () => {
  const plain = '{"type":"invocationresult","invocation_id":"i1","result":{"n":1}}';
  const parsed = JSON.parse(plain).result;
  assert.equal(exactlyParsedMember(plain, "result", parsed), parsed);
  const cases: [string, string][] = [
    ['{"type":"invocationresult","result":{"id":9007199254740993}}', '{"id":9007199254740993}'],
    ['{"result":[12345678901234567890],"traceparent":"00-1"}', "[12345678901234567890]"],
    // Digits elsewhere in the frame: the member, parsed again, is the same value.
    ['{"function_id":"f::1234567890123456789","result":{"n":1}}', '{"n":1}'],
  ];
  for (const [frame, written] of cases) {
    const value = exactlyParsedMember(frame, "result", JSON.parse(frame).result);
    assert.equal(JSON.stringify(value), written, frame);
  }
  // No such member: the value given.
  assert.equal(
    exactlyParsedMember('{"other":12345678901234567890}', "result", undefined),
    undefined,
  );
});

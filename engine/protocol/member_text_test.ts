import assert from "node:assert/strict";
import { firstMemberTexts, memberText } from "./member_text.ts";

Deno.test("memberText() finds the text of a top-level member", () => {
  const cases: [string, string, string | undefined][] = [
    ['{"type":"a","data":{"x":1}}', "data", '{"x":1}'],
    ['{"data":"}","type":"a"}', "data", '"}"'],
    ['{ "data" : [1, {"]": "\\"}"}] , "b": null }', "data", '[1, {"]": "\\"}"}]'],
    ['{"data":"\\\\"}', "data", '"\\\\"'],
    ['{"data":"\\\\\\""}', "data", '"\\\\\\""'],
    ['{"data":-1.5e+3}', "data", "-1.5e+3"],
    ['{"data":true,"x":false}', "data", "true"],
    ['{"data":null}', "data", "null"],
    ['{"d\\u0061ta":{}}', "data", "{}"],
    ['{"a":{"data":1}}', "data", undefined],
    ['{"type":"a"}', "data", undefined],
    ["{}", "data", undefined],
    ['{"data":1,"data":2}', "data", "2"],
    ['{"data":1,"type":"a","type":"b"}', "data", "1"],
    ['{"data":1,"d\\u0061ta":2}', "data", "2"],
    ['{"d\\u0061ta":1,"data":[2]}', "data", "[2]"],
    ['{"dat\\"":1}', "data", undefined],
    ['{"\\\\ata":1}', "data", undefined],
    ["[1]", "data", undefined],
  ];
  for (const [text, key, expected] of cases) assert.equal(memberText(text, key), expected, text);
});

Deno.test("memberText() gives up on text that is not a whole object", () => {
  for (const text of ['{"data":"open', '{"data":{"a":1}', '{"data"', '{"data":', "", "{"]) {
    assert.equal(memberText(text, "data"), undefined, text);
  }
});

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const PIECES = ['"', "\\", "}", "]", "{", "[", ",", ":", " ", "a", "é", "😀", "\n", "\u2028", "x"];

Deno.test("memberText() agrees with JSON.parse on generated frames", () => {
  const rnd = random(20261121);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const space = () => rnd() < 0.3 ? pick([" ", "\n", "\t ", "\r\n  "]) : "";
  const str = () =>
    JSON.stringify(Array.from({ length: Math.floor(rnd() * 6) }, () => pick(PIECES)).join(""));
  const value = (depth: number): string => {
    const r = rnd();
    if (depth > 3 || r < 0.35) {
      return pick([
        str,
        () => String(Math.round(rnd() * 1e6) / 100 - 50),
        () => "1e-7",
        () => pick(["true", "false", "null"]),
      ])();
    }
    const n = Math.floor(rnd() * 4);
    const items = Array.from(
      { length: n },
      () =>
        r < 0.7
          ? `${space()}${str()}${space()}:${space()}${value(depth + 1)}${space()}`
          : `${space()}${value(depth + 1)}${space()}`,
    );
    return r < 0.7 ? `{${items.join(",")}}` : `[${items.join(",")}]`;
  };
  for (let round = 0; round < 3000; round++) {
    const keys = ["type", "invocation_id", "data", "result", "x"].filter(() => rnd() < 0.7);
    if (rnd() < 0.1 && keys.length > 0) keys.push(pick(keys)); // a repeated key
    const values = keys.map(() => value(0));
    const name = (k: string) => k === "data" && rnd() < 0.1 ? '"d\\u0061ta"' : JSON.stringify(k);
    const text = `${space()}{${
      keys.map((k, i) => `${space()}${name(k)}${space()}:${space()}${values[i]}${space()}`).join(
        ",",
      )
    }}${space()}`;
    const parsed = JSON.parse(text);
    const found = memberText(text, "data");
    if (!keys.includes("data")) {
      assert.equal(found, undefined, text);
    } else {
      assert.equal(found, values[keys.lastIndexOf("data")], text);
      assert.deepEqual(JSON.parse(found!), parsed.data, text);
    }
  }
});

Deno.test("firstMemberTexts() takes the first member of each name and stops once all are read", () => {
  assert.deepEqual(firstMemberTexts('{"a":1,"b":{"x":"}"},"a":2}', ["a", "b"]), {
    a: "1",
    b: '{"x":"}"}',
  });
  assert.deepEqual(firstMemberTexts('{"a":1, "b" : [2], "c": <not json', ["a", "b"]), {
    a: "1",
    b: "[2]",
  });
  assert.deepEqual(firstMemberTexts('{"a":1,"c":3}', ["a", "b"]), { a: "1" });
  assert.equal(firstMemberTexts('{"a":1,"c": <not json', ["a", "b"]), undefined);
  assert.equal(firstMemberTexts("[1]", ["a"]), undefined);
});

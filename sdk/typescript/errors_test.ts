import assert from "node:assert/strict";
import { EngineError, toErrorBody } from "./errors.ts";

function hostileError(): Error {
  const err = new Error("x");
  Object.defineProperty(err, "message", {
    get() {
      throw new RangeError("getter");
    },
  });
  return err;
}

const hostileProxy = new Proxy({}, {
  get() {
    throw new Error("trap");
  },
  getPrototypeOf() {
    throw new Error("trap");
  },
});

Deno.test("toErrorBody() never throws, whatever a handler threw", () => {
  const cases: [string, unknown, { code: string; message: string }][] = [
    [
      "an Error whose message getter throws",
      hostileError(),
      { code: "invocation_failed", message: "Error (reading the thrown value raised RangeError)" },
    ],
    [
      "a Proxy whose traps throw",
      hostileProxy,
      { code: "invocation_failed", message: "object (reading the thrown value raised Error)" },
    ],
    [
      "an object whose toString throws",
      Object.assign(Object.create(null), { big: 1n }),
      { code: "invocation_failed", message: "object (reading the thrown value raised TypeError)" },
    ],
  ];
  for (const [what, thrown, expected] of cases) {
    assert.deepEqual(toErrorBody(thrown), expected, what);
  }
});

Deno.test("toErrorBody() names an Error that has no message by its type", () => {
  const cases: [unknown, string, string][] = [
    [new Error(), "invocation_failed", "Error"],
    [new TypeError(""), "invocation_failed", "TypeError"],
    [new EngineError("bad_input", ""), "bad_input", "EngineError"],
    [new Error("kept"), "invocation_failed", "kept"],
  ];
  for (const [thrown, code, message] of cases) {
    const body = toErrorBody(thrown);
    assert.equal(body.code, code);
    assert.equal(body.message, message);
  }
});

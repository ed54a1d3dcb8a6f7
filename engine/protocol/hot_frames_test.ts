import assert from "node:assert/strict";
import { inboundFrames } from "./frames.ts";
import { isInvocationResult, isInvokeFunction } from "./hot_frames.ts";
import { parseFrame } from "./parse.ts";

const long = (n: number) => "x".repeat(n);

// [frame, valid per the zod schema]
const invoke: [Record<string, unknown>, boolean][] = [
  [{ function_id: "a::b", data: { x: 1 } }, true],
  [{ invocation_id: "i-1", function_id: "a::b", data: null }, true],
  [{ invocation_id: "i-1", function_id: "a::b" }, false],
  [{ invocation_id: "i", function_id: "a::b", data: 1, metadata: { m: 1 } }, true],
  [{ function_id: "a::b", data: 1, action: { type: "void" } }, true],
  [{ function_id: "a::b", data: 1, action: null }, true],
  [{ function_id: "a::b", data: 1, action: { type: "enqueue", queue: "jobs" } }, true],
  [{ function_id: "a::b", data: 0, traceparent: long(256), baggage: long(8192) }, true],
  [{ function_id: "a::b", data: "", message_type: "invokefunction" }, true],
  [{ function_id: "a::b", data: 1, action: { type: "enqueue" } }, false],
  [{ function_id: "a::b", data: 1, action: { type: "enqueue", queue: "" } }, false],
  [{ function_id: "a::b", data: 1, action: { type: "teleport" } }, false],
  [{ function_id: "a::b", data: 1, action: "void" }, false],
  [{ function_id: "a::b", data: 1, action: [] }, false],
  [{ invocation_id: null, function_id: "a::b", data: 1 }, false],
  [{ invocation_id: "", function_id: "a::b", data: 1 }, false],
  [{ invocation_id: 7, function_id: "a::b", data: 1 }, false],
  [{ invocation_id: long(513), function_id: "a::b", data: 1 }, false],
  [{ function_id: "", data: 1 }, false],
  [{ function_id: long(513), data: 1 }, false],
  [{ data: 1 }, false],
  [{ function_id: "a::b", data: 1, traceparent: long(257) }, false],
  [{ function_id: "a::b", data: 1, traceparent: null }, false],
  [{ function_id: "a::b", data: 1, baggage: long(8193) }, false],
  [{ function_id: "a::b", data: 1, baggage: 1 }, false],
];

const result: [Record<string, unknown>, boolean][] = [
  [{ invocation_id: "i-1", result: { y: 2 } }, true],
  [{ invocation_id: "i-1", function_id: "a::b" }, true],
  [{ invocation_id: "i-1", error: { code: "c", message: "m" } }, true],
  [{ invocation_id: "i-1", error: "boom", result: null }, true],
  [{ invocation_id: "i-1", traceparent: long(256) }, true],
  [{ invocation_id: "i-1", function_id: long(2000) }, true],
  [{ invocation_id: "" }, false],
  [{ invocation_id: long(513) }, false],
  [{ result: 1 }, false],
  [{ invocation_id: "i-1", function_id: 5 }, false],
  [{ invocation_id: "i-1", function_id: null }, false],
  [{ invocation_id: "i-1", traceparent: long(257) }, false],
  [{ invocation_id: "i-1", baggage: false }, false],
];

Deno.test("isInvokeFunction() and isInvocationResult() agree with the zod schemas", () => {
  const suites = [
    ["invokefunction", invoke, isInvokeFunction],
    ["invocationresult", result, isInvocationResult],
  ] as const;
  for (const [type, cases, quick] of suites) {
    for (const [fields, valid] of cases) {
      const frame = { type, ...fields };
      const label = JSON.stringify(frame).slice(0, 120);
      assert.equal(inboundFrames[type].safeParse(frame).success, valid, `zod: ${label}`);
      assert.equal(quick(frame), valid, `quick check: ${label}`);
      const parsed = parseFrame(JSON.stringify(frame));
      assert.equal(parsed.ok, valid, `parseFrame: ${label}`);
    }
  }
});

Deno.test("parseFrame() refuses frames nested too deep, valid JSON or not", () => {
  const deep = (n: number) =>
    `{"type":"invokefunction","function_id":"a::b","data":${"[".repeat(n)}${"]".repeat(n)}}`;
  assert.equal(parseFrame(deep(510)).ok, true, "511 levels with the frame itself");
  for (const text of [deep(512), deep(5000), "[".repeat(10_000), `{"a":${"{".repeat(600)}`]) {
    const out = parseFrame(text);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.message, /nested more than 512 levels/);
  }
});

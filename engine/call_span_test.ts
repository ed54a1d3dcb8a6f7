import assert from "node:assert/strict";
import { callSpan, isTraced } from "./call_span.ts";
import type { Invocation } from "./invocations.ts";

Deno.test("isTraced() records worker calls and traced calls, not internal or engine reads", () => {
  const cases: [Parameters<typeof isTraced>, ReturnType<typeof isTraced>][] = [
    [[undefined, "websocket", {}, false], true],
    [[undefined, "builtin", {}, false], false],
    [[undefined, "builtin", {}, true], true],
    [[false, "websocket", {}, true], false],
    [[undefined, "websocket", { metadata: { internal: true } }, true], false],
    [["async", "websocket", {}, true], "async"],
    [["async", "builtin", {}, false], false],
    [["async", "websocket", { metadata: { internal: true } }, true], false],
  ];
  for (const [args, expected] of cases) assert.equal(isTraced(...args), expected, String(args));
});

Deno.test("callSpan() is the call's span, with its parent, worker and error when it has them", () => {
  const inv = {
    id: "i",
    functionId: "a::b",
    target: "w",
    caller: undefined,
    start: 1000,
    timeoutMs: 1,
    deadline: 0,
    traceId: "t".repeat(32),
    spanId: "s".repeat(16),
    parentSpanId: "p".repeat(16),
    traced: true,
    settle: () => {},
  } satisfies Invocation;
  const error = { code: "x", message: "y" };
  assert.deepEqual(callSpan(inv, "W", { ok: false, error }, 1250), {
    traceId: inv.traceId,
    spanId: inv.spanId,
    parentSpanId: inv.parentSpanId,
    kind: "call",
    name: "a::b",
    functionId: "a::b",
    start: 1000,
    durationMs: 250,
    status: "error",
    worker: "W",
    error,
  });
  const ok = callSpan(
    { ...inv, parentSpanId: undefined },
    undefined,
    { ok: true, result: 1 },
    1000,
  );
  assert.equal(ok.status, "ok");
  assert.equal("parentSpanId" in ok || "worker" in ok || "error" in ok, false);
});

Deno.test("callSpan() marks a call its caller does not wait for, when it has a parent", () => {
  const inv = {
    id: "i",
    functionId: "a::b",
    target: "w",
    caller: undefined,
    start: 1000,
    timeoutMs: 1,
    deadline: 0,
    traceId: "t".repeat(32),
    spanId: "s".repeat(16),
    parentSpanId: "p".repeat(16) as string | undefined,
    traced: "async" as boolean | "async",
    settle: () => {},
  } satisfies Invocation;
  const cases: [Partial<Invocation>, unknown][] = [
    [{}, { "engine.call.async": true }],
    [{ traced: true }, undefined],
    [{ parentSpanId: undefined }, undefined],
  ];
  for (const [change, attributes] of cases) {
    const span = callSpan({ ...inv, ...change }, "W", { ok: true, result: 1 }, 1000);
    assert.deepEqual(span.attributes, attributes, JSON.stringify(change));
  }
});

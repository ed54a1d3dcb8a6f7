import assert from "node:assert/strict";
import { callSpan, isTraced } from "./call_span.ts";
import type { Invocation } from "./invocations.ts";

Deno.test("isTraced() records worker calls and traced calls, not internal or engine reads", () => {
  const cases: [Parameters<typeof isTraced>, boolean][] = [
    [[undefined, "websocket", {}, false], true],
    [[undefined, "builtin", {}, false], false],
    [[undefined, "builtin", {}, true], true],
    [[false, "websocket", {}, true], false],
    [[undefined, "websocket", { metadata: { internal: true } }, true], false],
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

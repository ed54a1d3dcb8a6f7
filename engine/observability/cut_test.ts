import assert from "node:assert/strict";
import { cutText, MAX_MESSAGE, MAX_STRING } from "./cut.ts";
import { LogStore } from "./logs.ts";
import { MAX_ITEMS, redactor } from "./redact.ts";
import { TraceStore } from "./traces.ts";

Deno.test("cutText() keeps text up to the limit and says how much more was cut", () => {
  assert.equal(cutText("abcd", 4), "abcd");
  assert.equal(cutText("abcdef", 4), "abcd … [2 more characters cut]");
  assert.equal(cutText("x".repeat(1_234_567), 1), "x … [1,234,566 more characters cut]");
});

Deno.test("redactor() bounds long strings, lists and maps, and leaves small values as they are", () => {
  const redact = redactor();
  const small = { a: "x", list: [1, 2], token: "t" };
  assert.deepEqual(redact(small), { a: "x", list: [1, 2], token: "[redacted]" });
  const long = "y".repeat(MAX_STRING + 10);
  assert.equal(redact(long), `${"y".repeat(MAX_STRING)} … [10 more characters cut]`);
  const list = redact({ items: Array.from({ length: MAX_ITEMS + 5 }, (_, i) => i) }) as {
    items: unknown[];
  };
  assert.equal(list.items.length, MAX_ITEMS + 1);
  assert.equal(list.items.at(-1), "… [5 more items cut]");
  const map = redact(Object.fromEntries(
    Array.from({ length: MAX_ITEMS + 3 }, (_, i) => [`k${i}`, i === 0 ? long : i]),
  )) as Record<string, unknown>;
  assert.equal(Object.keys(map).length, MAX_ITEMS + 1);
  assert.equal(map["…"], "[3 more keys cut]");
  assert.match(map.k0 as string, /… \[10 more characters cut\]$/);
});

Deno.test("LogStore and TraceStore keep no message, stack trace or string beyond their limits", () => {
  const logs = new LogStore();
  const huge = "z".repeat(1_000_000);
  logs.logger().error(huge, { body: huge });
  const [entry] = logs.query();
  assert.equal(entry!.message.length < MAX_MESSAGE + 50, true);
  assert.match(entry!.message, /… \[967,232 more characters cut\]$/);
  assert.equal((entry!.data as { body: string }).body.length < MAX_STRING + 50, true);

  const traces = new TraceStore();
  traces.record({
    traceId: "t",
    spanId: "s",
    kind: "call",
    name: "a::b",
    start: 0,
    durationMs: 1,
    status: "error",
    error: { code: "invocation_failed", message: huge, stacktrace: huge },
  });
  const [span] = traces.trace("t");
  assert.match(span!.error!.message, /… \[967,232 more characters cut\]$/);
  assert.match(span!.error!.stacktrace!, /… \[967,232 more characters cut\]$/);
  assert.equal(span!.error!.code, "invocation_failed");
});

Deno.test("LogStore and TraceStore cut names and ids as they cut messages (an OTLP frame sets them all)", () => {
  const long = "n".repeat(1_000_000);
  const logs = new LogStore({ capacity: 10 });
  logs.write({
    time: 0,
    level: "info",
    message: "m",
    source: long,
    worker: long,
    function: long,
    traceId: long,
    spanId: long,
  });
  const entry = logs.query()[0]!;
  for (const field of ["source", "worker", "function", "traceId", "spanId"] as const) {
    assert.ok(entry[field]!.length < MAX_STRING + 100, `log ${field}: ${entry[field]!.length}`);
    assert.match(entry[field]!, /more characters cut\]$/);
  }
  const traces = new TraceStore(10);
  traces.record({
    traceId: long,
    spanId: long,
    parentSpanId: long,
    kind: long,
    name: long,
    functionId: long,
    worker: long,
    start: 0,
    durationMs: 0,
    status: "ok",
  });
  const span = traces.ring.toArray()[0]!;
  for (
    const field of [
      "traceId",
      "spanId",
      "parentSpanId",
      "kind",
      "name",
      "functionId",
      "worker",
    ] as const
  ) {
    assert.ok(span[field]!.length < MAX_STRING + 100, `span ${field}: ${span[field]!.length}`);
  }
  // Short ones are kept as they are, in the same object.
  const short = { time: 0, level: "info" as const, message: "m", source: "w", traceId: "t" };
  logs.write(short);
  assert.equal(logs.query().at(-1), short);
});

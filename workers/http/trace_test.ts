import assert from "node:assert/strict";
import { traceFor } from "./trace.ts";

const INBOUND = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

Deno.test("traceFor() continues a version-00 inbound traceparent under the caller's span", () => {
  for (const inbound of [INBOUND, ` ${INBOUND.toUpperCase()} `]) {
    const t = traceFor(inbound);
    assert.equal(t.traceId, "4bf92f3577b34da6a3ce929d0e0e4736", inbound);
    assert.equal(t.parentSpanId, "00f067aa0ba902b7");
    assert.match(t.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(t.spanId, "00f067aa0ba902b7");
    assert.equal(t.traceparent, `00-${t.traceId}-${t.spanId}-01`);
  }
});

Deno.test("traceFor() starts a trace without a usable inbound traceparent", () => {
  for (
    const inbound of [
      null,
      "garbage",
      INBOUND.replace("00-", "01-"), // only version 00 is continued
      INBOUND.replace("4bf92f3577b34da6a3ce929d0e0e4736", "0".repeat(32)),
    ]
  ) {
    const t = traceFor(inbound);
    assert.notEqual(t.traceId, "4bf92f3577b34da6a3ce929d0e0e4736", String(inbound));
    assert.equal(t.parentSpanId, undefined);
    assert.equal(t.traceparent, `00-${t.traceId}-${t.spanId}-01`);
  }
});

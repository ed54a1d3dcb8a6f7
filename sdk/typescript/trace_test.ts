import assert from "node:assert/strict";
import { parseTraceparent } from "./trace.ts";
import { parseTraceparent as engineParseTraceparent } from "../../engine/observability/traceparent.ts";
import { TRACEPARENT } from "./_testing/with_worker.ts";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const SPAN_ID = "b7ad6b7169203331";
const PARTS = { version: "00", traceId: TRACE_ID, spanId: SPAN_ID, flags: "01" };

Deno.test("parseTraceparent() reads any case and surrounding space, and returns lower case", () => {
  const cases: [string, typeof PARTS][] = [
    [TRACEPARENT, PARTS],
    [TRACEPARENT.toUpperCase(), PARTS],
    [`00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`, PARTS],
    ["00-0aF7651916Cd43dD8448eB211C80319C-B7aD6b7169203331-01", PARTS],
    [` ${TRACEPARENT.toUpperCase()}\n`, PARTS],
    [TRACEPARENT.replace(/01$/, "FF"), { ...PARTS, flags: "ff" }],
    [TRACEPARENT.replace(/^00/, "0A"), { ...PARTS, version: "0a" }],
  ];
  for (const [value, expected] of cases) {
    assert.deepEqual(parseTraceparent(value), expected, JSON.stringify(value));
  }
});

Deno.test("parseTraceparent() refuses malformed values and all-zero ids in any case", () => {
  const bad: unknown[] = [
    undefined,
    null,
    42,
    "",
    "garbage",
    TRACEPARENT.slice(1),
    TRACEPARENT + "0",
    TRACEPARENT.replace(/^00/, "ff"),
    TRACEPARENT.replace(/^00/, "FF"),
    TRACEPARENT.replace(TRACE_ID, "0".repeat(32)),
    TRACEPARENT.toUpperCase().replace(TRACE_ID.toUpperCase(), "0".repeat(32)),
    TRACEPARENT.replace(SPAN_ID, "0".repeat(16)),
    TRACEPARENT.toUpperCase().replace(SPAN_ID.toUpperCase(), "0".repeat(16)),
    TRACEPARENT.replace("-b7", "_b7"),
    TRACEPARENT.replace("0af7", "0ag7"),
    TRACEPARENT.toUpperCase().replace("0AF7", "0AG7"),
  ];
  for (const value of bad) {
    assert.equal(parseTraceparent(value), undefined, JSON.stringify(value));
  }
});

Deno.test("parseTraceparent() agrees with the engine's parser on every one-character change", () => {
  const inputs = [TRACEPARENT, TRACEPARENT.toUpperCase(), ` ${TRACEPARENT} `];
  for (const base of [TRACEPARENT, TRACEPARENT.toUpperCase()]) {
    for (let i = 0; i < base.length; i++) {
      for (const c of ["0", "9", "a", "f", "g", "A", "F", "G", "-", " ", "_"]) {
        inputs.push(base.slice(0, i) + c + base.slice(i + 1));
      }
    }
  }
  for (const value of inputs) {
    const ours = parseTraceparent(value);
    const engine = engineParseTraceparent(value);
    if (engine === undefined) assert.equal(ours, undefined, JSON.stringify(value));
    else {
      const version = value.trim().slice(0, 2).toLowerCase();
      assert.deepEqual(ours, { version, ...engine }, JSON.stringify(value));
    }
  }
});

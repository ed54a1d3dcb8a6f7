import assert from "node:assert/strict";
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from "./traceparent.ts";

const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/** The rule written out once more, as a regular expression: what every input must agree with. */
function reference(value: string | undefined | null) {
  if (!value) return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(
    value.trim().toLowerCase(),
  );
  if (!m || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, flags: m[4]! };
}

Deno.test("parseTraceparent() reads the canonical form and refuses invalid ones", () => {
  assert.deepEqual(parseTraceparent(TP), {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    flags: "01",
  });
  for (
    const bad of [
      undefined,
      null,
      "",
      TP.slice(1),
      TP + "0",
      TP.replace("00-", "ff-"),
      TP.replace("0af7651916cd43dd8448eb211c80319c", "0".repeat(32)),
      TP.replace("b7ad6b7169203331", "0".repeat(16)),
      TP.replace("-b7", "_b7"),
      TP.replace("0af7", "0ag7"),
    ]
  ) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
});

Deno.test("parseTraceparent() agrees with the regular expression on upper case, spaces and mutations", () => {
  const inputs = [
    TP,
    TP.toUpperCase(),
    ` ${TP} `,
    `\t${TP}\n`,
    formatTraceparent({
      traceId: newTraceId(),
      spanId: newSpanId(),
      flags: "00",
    }),
  ];
  // Every single-character change of a valid value, with characters that matter to the rule.
  for (let i = 0; i < TP.length; i++) {
    for (const c of ["0", "9", "a", "f", "g", "A", "F", "-", " ", "_"]) {
      inputs.push(TP.slice(0, i) + c + TP.slice(i + 1));
    }
  }
  for (const value of inputs) {
    assert.deepEqual(parseTraceparent(value), reference(value), JSON.stringify(value));
  }
});

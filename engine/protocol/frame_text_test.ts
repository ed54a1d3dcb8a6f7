import assert from "node:assert/strict";
import { invokeFrameText, resultFrameText } from "./frame_text.ts";

const STRANGE = ['a"b', "back\\slash", "line\nbreak", "é😀", "\u2028", ""];

Deno.test("invokeFrameText() writes the frame JSON.stringify would, around the payload's text", () => {
  const payloads = ['{"x": [1, "}"]}', "null", ' "text" ', "18446744073709551615"];
  for (const dataText of payloads) {
    for (const s of STRANGE) {
      const optional = [
        {},
        { metadata: { note: s, n: [1, 2] } },
        { traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01` },
        { baggage: `k=${s}` },
        { metadata: null, traceparent: "t", baggage: "b" },
      ];
      for (const extra of optional) {
        const call = { invocationId: `id${s}`, functionId: `f::${s}`, dataText, ...extra };
        const text = invokeFrameText(call);
        const expected: Record<string, unknown> = {
          type: "invokefunction",
          invocation_id: call.invocationId,
          function_id: call.functionId,
          data: JSON.parse(dataText),
          ...extra,
        };
        assert.deepEqual(JSON.parse(text), expected, text);
        if (dataText === payloads[3]) assert.ok(text.includes(`"data":${dataText}`), "as given");
      }
    }
  }
  const empty = invokeFrameText({
    invocationId: "i",
    functionId: "a::b",
    dataText: "1",
    baggage: "",
  });
  assert.equal(
    empty,
    '{"type":"invokefunction","invocation_id":"i","function_id":"a::b","data":1}',
  );
});

Deno.test("resultFrameText() writes the frame JSON.stringify would, around the result's text", () => {
  for (const s of STRANGE) {
    for (const traceparent of [undefined, "", `00-${"c".repeat(32)}-${"d".repeat(16)}-01`]) {
      const text = resultFrameText(`id${s}`, `f::${s}`, ' {"ok" : true} ', traceparent);
      const expected: Record<string, unknown> = {
        type: "invocationresult",
        invocation_id: `id${s}`,
        function_id: `f::${s}`,
        result: { ok: true },
      };
      if (traceparent) expected.traceparent = traceparent;
      assert.deepEqual(JSON.parse(text), expected, text);
    }
  }
});

import assert from "node:assert/strict";
import { callOfText, parseFrame } from "./parse.ts";

Deno.test("parseFrame() accepts the frames iii-sdk 0.22.1 sends, stray fields included", () => {
  const frames = [
    '{"type":"registerfunction","description":"Echo","metadata":{"tag":"x"},"request_format":{"type":"object"},"id":"demo::echo"}',
    '{"type":"registertrigger","function_id":"demo::echo","config":{"api_path":"/echo/:id","http_method":"POST"},"metadata":{"m":1},"id":"3e296ae5-2755-4aae-882c-428364c201b1","message_type":"registertrigger","trigger_type":"http"}',
    '{"type":"unregistertrigger","id":"3e296ae5","message_type":"unregistertrigger","trigger_type":"http"}',
    '{"type":"invokefunction","invocation_id":"ca63b520-8c8e-4d48-8430-a856f76682ec","function_id":"remote::fn","data":{"x":1},"metadata":{"trace":"m"}}',
    '{"type":"invokefunction","function_id":"fire::forget","data":{"z":1},"action":{"type":"void"}}',
    '{"type":"invokefunction","invocation_id":"4ef26548","function_id":"queued::fn","data":{"q":1},"action":{"type":"enqueue","queue":"jobs"}}',
    '{"type":"invocationresult","invocation_id":"aaaa","function_id":"demo::void"}',
    '{"type":"invocationresult","invocation_id":"aaaa","function_id":"demo::echo","error":{"code":"invocation_failed","message":"boom","stacktrace":"Error: boom"}}',
    '{"type":"triggerregistrationresult","id":"trig-A","message_type":"triggerregistrationresult","function_id":"demo::echo","trigger_type":"my-tt"}',
    '{"type":"registertriggertype","id":"my-tt","description":"custom trigger type"}',
    '{"type":"unregistertriggertype","id":"my-tt","description":"custom trigger type"}',
    '{"type":"reattach","previous_worker_id":"11111111-1111-4111-8111-000000000002","reattach_token":"tok-2"}',
    '{"type":"reattach","previous_worker_id":"11111111-1111-4111-8111-000000000002"}',
    '{"type":"ping"}',
  ];
  for (const text of frames) {
    const out = parseFrame(text);
    assert.ok(out.ok, `${text}: ${JSON.stringify(out)}`);
  }
});

Deno.test("parseFrame() says what is wrong with a bad frame", () => {
  const cases: [string, string, RegExp][] = [
    ["{", "invalid_json", /not valid JSON/],
    ["null", "invalid_frame", /JSON object/],
    ['{"type":5}', "invalid_frame", /no "type" field/],
    [
      '{"type":"registertrigger","id":"t","function_id":"a::b","config":{}}',
      "invalid_frame",
      /field "trigger_type": Missing required field$/,
    ],
    [
      '{"type":"invokefunction","invocation_id":"i","function_id":"a::b"}',
      "invalid_frame",
      /field "data": Missing required field$/,
    ],
    [
      '{"type":"registerfunction","id":7}',
      "invalid_frame",
      /field "id": Expected a string, got 7$/,
    ],
    [
      '{"type":"invokefunction","function_id":"a::b","data":1,"action":{"type":"teleport"}}',
      "invalid_frame",
      /field "action.type"/,
    ],
    [
      `{"type":"registerfunction","id":"${"x".repeat(600)}"}`,
      "invalid_frame",
      /field "id": Must be at most 512 characters long, got 600$/,
    ],
    ["\u0000\u0001garbage", "invalid_json", /not valid JSON/],
  ];
  for (const [text, code, message] of cases) {
    const out = parseFrame(text);
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.code, code, text.slice(0, 50));
      assert.match(out.message, message);
    }
  }
});

Deno.test("parseFrame() skips empty frames silently", () => {
  const out = parseFrame("   ");
  assert.equal(out.ok, false);
  assert.equal(!out.ok && out.skip, true);
});

Deno.test("parseFrame() names the call a refused invokefunction or invocationresult belongs to", () => {
  const deep = "[".repeat(600) + "]".repeat(600);
  const cases: [string, unknown][] = [
    [
      `{"type":"invokefunction","invocation_id":"i1","function_id":"a::b","data":${deep}}`,
      { type: "invokefunction", invocationId: "i1", functionId: "a::b" },
    ],
    [
      `{"type":"invocationresult","invocation_id":"i2","function_id":"a::b","result":${deep}}`,
      { type: "invocationresult", invocationId: "i2", functionId: "a::b" },
    ],
    [
      '{"type":"invokefunction","invocation_id":"i3","function_id":"a::b","action":{"type":"teleport"}}',
      { type: "invokefunction", invocationId: "i3", functionId: "a::b" },
    ],
    // Nobody waits for a void call's answer; without a readable id there is no call to name.
    [
      `{"type":"invokefunction","invocation_id":"i4","function_id":"a::b","data":${deep},"action":{"type":"void"}}`,
      undefined,
    ],
    ['{"type":"invokefunction","invocation_id":7,"function_id":"a::b"}', undefined],
    [`{"type":"registerfunction","id":"a::b","metadata":${deep}}`, undefined],
  ];
  for (const [text, call] of cases) {
    const out = parseFrame(text);
    assert.equal(out.ok, false, text.slice(0, 60));
    if (!out.ok) assert.deepEqual(out.call, call, text.slice(0, 60));
  }
});

Deno.test("callOfText() reads the call of a frame from its first members only", () => {
  const big = JSON.stringify("x".repeat(10_000));
  const cases: [string, unknown][] = [
    [
      `{"type":"invokefunction","invocation_id":"i1","function_id":"a::b","data":${big}}`,
      { type: "invokefunction", invocationId: "i1", functionId: "a::b" },
    ],
    [
      `{"result":${big},"function_id":"a::b","invocation_id":"i2","type":"invocationresult"}`,
      { type: "invocationresult", invocationId: "i2", functionId: "a::b" },
    ],
    // Once the envelope is read, the rest is not: it need not even be complete.
    [
      `{"type":"invocationresult","invocation_id":"i3","function_id":"a::b","result":[[[`,
      { type: "invocationresult", invocationId: "i3", functionId: "a::b" },
    ],
    [`{"type":"invokefunction","function_id":"a::b","data":${big}}`, undefined],
    [`{"type":"registerfunction","invocation_id":"i4","id":"a::b"}`, undefined],
    [`{"type":"invokefunction","invocation_id":7,"function_id":"a::b"}`, undefined],
    ["not json at all", undefined],
  ];
  for (const [text, call] of cases) assert.deepEqual(callOfText(text), call, text.slice(0, 60));
});

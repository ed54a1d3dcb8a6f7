import assert from "node:assert/strict";
import { parseStateTriggerConfig } from "./triggers.ts";

Deno.test("parseStateTriggerConfig() accepts filters and tolerates unknown keys", () => {
  assert.deepEqual(parseStateTriggerConfig(undefined), {});
  assert.deepEqual(parseStateTriggerConfig(null), {});
  assert.deepEqual(parseStateTriggerConfig({}), {});
  assert.deepEqual(parseStateTriggerConfig({ scope: "users", key: "u1", note: 1 }), {
    scope: "users",
    key: "u1",
  });
  assert.deepEqual(parseStateTriggerConfig({ condition_function_id: "c::ok" }), {
    condition_function_id: "c::ok",
  });
});

const refused: [unknown, string][] = [
  ["users", 'Invalid state trigger config: expected an object with "scope" and/or "key"'],
  [[], 'Invalid state trigger config: expected an object with "scope" and/or "key"'],
  [{ scope: 5 }, 'Invalid state trigger config: "scope" must be a non-empty string'],
  [{ key: "" }, 'Invalid state trigger config: "key" must be a non-empty string'],
  [
    { condition_function_id: true },
    'Invalid state trigger config: "condition_function_id" must be a non-empty string',
  ],
];

for (const [raw, message] of refused) {
  Deno.test(`parseStateTriggerConfig() refuses ${JSON.stringify(raw)}`, () => {
    assert.throws(() => parseStateTriggerConfig(raw), { message });
  });
}

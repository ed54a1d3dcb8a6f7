import assert from "node:assert/strict";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { parseStateTriggerConfig, type StateEvent, StateTriggers } from "./triggers.ts";

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

function changed(value: number): StateEvent {
  return {
    type: "state",
    event_type: "state:updated",
    scope: "s",
    key: "k",
    old_value: null,
    new_value: value,
  };
}

/** Resolves after the timers already set (the fan-out's) have run. */
const afterTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("StateTriggers asks conditions at once but calls the handler in the order of the changes", async () => {
  // The engine's side of the calls: conditions answer when the test says, handlers at once.
  const asked: { value: unknown; answer(passes: boolean): void }[] = [];
  let answerAtOnce = false;
  const handled: unknown[] = [];
  let allHandled!: () => void;
  const done = new Promise<void>((resolve) => allHandled = resolve);
  const triggers = new StateTriggers({
    log: recordingLog().log,
    call(functionId, payload) {
      const value = (payload as StateEvent).new_value;
      if (functionId === "t::handler") {
        handled.push(value);
        if (handled.length === 3) allHandled();
        return Promise.resolve(null);
      }
      if (answerAtOnce) return Promise.resolve(true);
      return new Promise((resolve) => asked.push({ value, answer: resolve }));
    },
  });
  triggers.registerTrigger({
    id: "t1",
    type: "state",
    functionId: "t::handler",
    config: { condition_function_id: "t::condition" },
    workerId: "w",
  });
  for (const value of [1, 2, 3]) triggers.fire(changed(value));
  await afterTimers();
  // The conditions are asked at once, not one after the other (a stuck one would let the
  // changes behind it pile up), and no handler is called before the first change's answer.
  assert.deepEqual(asked.map((a) => a.value), [1, 2, 3]);
  assert.deepEqual(handled, []);
  // They answer, the latest change's first.
  answerAtOnce = true;
  for (const { answer } of asked.reverse()) answer(true);
  await done;
  assert.deepEqual(handled, [1, 2, 3]);
  triggers.stop();
});

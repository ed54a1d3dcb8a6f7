import assert from "node:assert/strict";
import { parseTriggerArgs } from "./trigger.ts";
import { UsageError } from "./usage.ts";

Deno.test("parseTriggerArgs() answers the reference's positional form with the options to write", () => {
  const cases: [string[], string][] = [
    [["math::add"], 'Unexpected argument "math::add": write --function-id=math::add'],
    [
      ["math::add", "a=1", "b=x y", "l=[1,2]"],
      `Unexpected argument "math::add": write --function-id=math::add ` +
      `--payload='{"a":1,"b":"x y","l":[1,2]}'`,
    ],
    [
      ["--timeout-ms=50", "orders::create", "note=it's"],
      `Unexpected argument "orders::create": write --function-id=orders::create ` +
      `--payload='{"note":"it'\\''s"}'`,
    ],
    [
      ["--function-id=math::add", "a=1"],
      'Unexpected argument "a=1": give the payload as JSON with --payload, e.g. ' +
      `--payload='{"a":1}'`,
    ],
    [["math::add", "oops"], 'Unexpected argument "math::add": write --function-id=math::add'],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseTriggerArgs(args), (e: unknown) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.equal(e.message, message, args.join(" "));
      return true;
    });
  }
});

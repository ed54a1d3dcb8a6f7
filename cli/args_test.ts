import assert from "node:assert/strict";
import { parseCommandArgs } from "./args.ts";
import { UsageError } from "./usage.ts";

const OPTIONS = {
  config: { type: "string", short: "c" },
  follow: { type: "boolean", short: "f" },
  payload: { type: "string" },
} as const;

Deno.test("parseCommandArgs() says what is wrong with the arguments in one line, quoting the option or argument", () => {
  const cases: [string[], string][] = [
    [["--config"], 'Missing value of "--config": write --config=<value>'],
    [["-c"], 'Missing value of "--config": write --config=<value>'],
    [["--follow=yes"], 'Option "--follow" takes no value: write --follow alone'],
    [
      ["--payload", "-1"],
      'Missing value of "--payload": it is followed by an option; a value starting with "-" is ' +
      "written --payload=<value>",
    ],
    [["-f", "extra"], 'Unexpected argument "extra": this command takes options only'],
    [["--folow"], 'Unknown option "--folow": did you mean "--follow"?'],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => parseCommandArgs("logs", { args, options: OPTIONS, strict: true }),
      (e: unknown) => {
        assert.ok(e instanceof UsageError, String(e));
        assert.equal(e.message, message, args.join(" "));
        return true;
      },
    );
  }
});

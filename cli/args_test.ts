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
    [["--config="], 'Empty value of "--config": give one, or leave the option out'],
    [["-c", ""], 'Empty value of "--config": give one, or leave the option out'],
    [
      ["--payload={}", "--payload", "[]"],
      'Option "--payload" is given twice: give it once (the second would override the first)',
    ],
    [
      ["-c", "a.yaml", "--config=b.yaml"],
      'Option "--config" is given twice: give it once (the second would override the first)',
    ],
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

Deno.test("every command that takes --url refuses one that is not a WebSocket URL with exit 2", async (t) => {
  const { main } = await import("./main.ts");
  const commands: [string, string[]][] = [
    ["trigger", ["trigger", "--function-id=math::add"]],
    ["logs", ["logs"]],
    ["console", ["console", "--port=0"]],
    ["worker list", ["worker", "list"]],
  ];
  const urls: [string, RegExp][] = [
    [
      "127.0.0.1:49134",
      /^Error: --url must be a WebSocket URL.*: got "127\.0\.0\.1:49134": write "ws:\/\/127\.0\.0\.1:49134"$/m,
    ],
    ["localhost:49134", /: got "localhost:49134": write "ws:\/\/localhost:49134"$/m],
    [
      "nonsense",
      /^Error: --url must be a WebSocket URL, e\.g\. ws:\/\/127\.0\.0\.1:49134: got "nonsense"$/m,
    ],
    ["ftp://127.0.0.1:49134", /: got "ftp:\/\/127\.0\.0\.1:49134"$/m],
  ];
  for (const [name, args] of commands) {
    for (const [url, message] of urls) {
      await t.step(`${name} --url=${url}`, async () => {
        const err: string[] = [];
        const code = await main([...args, `--url=${url}`], {
          out: () => {},
          err: (line) => err.push(line),
        });
        assert.equal(code, 2, err.join("\n"));
        assert.match(err.join("\n"), message);
      });
    }
  }
});

import assert from "node:assert/strict";
import { movePortHint, portVariable } from "./port_variable.ts";

Deno.test("portVariable() names the variable a port is read from, and nothing for any other value", () => {
  const cases: [string, (string | number)[], string | undefined][] = [
    ["port: ${ENGINE_PORT:49134}\n", ["port"], "ENGINE_PORT"],
    ["port: ${ENGINE_PORT}\n", ["port"], "ENGINE_PORT"],
    ['port: "${ENGINE_PORT:}"\n', ["port"], "ENGINE_PORT"],
    ["port: ${ENGINE_PORT:49134} # a comment\n", ["port"], "ENGINE_PORT"],
    ["console:\n  port: ${ENGINE_CONSOLE_PORT:3113}\n", ["console", "port"], "ENGINE_CONSOLE_PORT"],
    [
      "workers:\n  - name: engine-state\n  - name: engine-http\n    config: {port: ${HTTP:3111}}\n",
      ["workers", 1, "config", "port"],
      "HTTP",
    ],
    ["port: 49134\n", ["port"], undefined],
    ["port: 4${DIGITS}\n", ["port"], undefined],
    ["host: ${HOST}\n", ["port"], undefined],
    ["port: 1\n", ["port", "deeper"], undefined],
    ["", ["port"], undefined],
  ];
  for (const [text, path, variable] of cases) {
    assert.equal(portVariable(text, path), variable, text);
  }
});

Deno.test("movePortHint() says how to move the port for one run, or nothing", () => {
  assert.equal(
    movePortHint("ENGINE_PORT"),
    " (the file reads it from ENGINE_PORT: ENGINE_PORT=<port> moves it for one run)",
  );
  assert.equal(movePortHint(undefined), "");
});

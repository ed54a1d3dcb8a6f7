import assert from "node:assert/strict";
import { parseConfig } from "./parse.ts";
import { APPLIED, restartFields, restartNotice } from "./restart_fields.ts";
import { EngineConfig } from "./schema.ts";

function read(text: string) {
  const parsed = parseConfig(text, { file: "f.yaml", env: () => undefined });
  if (!parsed.ok) throw parsed.error;
  return parsed.config;
}

Deno.test("APPLIED says how every top-level key of the schema reaches a running engine", () => {
  assert.deepEqual(Object.keys(APPLIED).sort(), Object.keys(EngineConfig.shape).sort());
});

Deno.test("restartFields() names the restart-only fields an edit changed, pending or restored", () => {
  const running = read("port: 1\nauth:\n  token: first-token\n");
  const cases: [previous: string, next: string, pending: string[], restored: string[]][] = [
    ["port: 1\nauth:\n  token: first-token\n", "port: 2\nauth:\n  token: other-token\n", [
      "port",
      "auth.token",
    ], []],
    ["port: 2\nauth:\n  token: first-token\n", "port: 1\nauth:\n  token: first-token\n", [], [
      "port",
    ]],
    ["port: 1\nauth:\n  token: first-token\n", "port: 1\n", ["auth.token"], []],
    ["port: 1\nlogs:\n  redact: [a]\n", "port: 1\nlogs:\n  redact: [a, b]\n", ["logs.redact"], []],
    // logs.level and logs.format apply live; logs.max_entries beside them does not.
    ["port: 1\n", "port: 1\nlogs: {level: debug, format: json}\n", [], []],
    ["port: 1\n", "port: 1\nlogs: {level: warn, max_entries: 5}\n", ["logs.max_entries"], []],
    // Workers and rest_api apply live: not listed.
    ["port: 1\n", "port: 1\nworkers: [{name: engine-state}]\nrest_api: {middleware: []}\n", [], []],
  ];
  for (const [previous, next, pending, restored] of cases) {
    const fields = restartFields(running, read(previous), read(next));
    assert.deepEqual(fields, { pending, restored }, `${previous} -> ${next}`);
  }
});

Deno.test("restartNotice() says what the engine accepts meanwhile, for a token, and never a value", () => {
  assert.equal(
    restartNotice("port"),
    'Config change of "port" takes effect when the engine restarts',
  );
  assert.match(restartNotice("auth.token"), /accepts only the token it started with/);
  assert.match(restartNotice("console.token"), /console accepts only the token it started with/);
});

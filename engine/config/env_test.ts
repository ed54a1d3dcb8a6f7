import assert from "node:assert/strict";
import { expandEnv } from "./env.ts";

const ENV: Record<string, string> = {
  HOST: "0.0.0.0",
  EMPTY: "",
  PORT: "4000",
  HASH: "abc #def",
  COLON: "a: b",
  QUOTES: `say "hi" it's \\`,
  LINES: "line 1\nline 2",
  ANCHOR: "&x",
  LIST: "[a, b]",
  NEGATIVE: "-1",
};
const env = (name: string) => ENV[name];

Deno.test("expandEnv() expands each form", async (t) => {
  const cases: [string, string, string][] = [
    ["set variable", "host: ${HOST}", "host: 0.0.0.0"],
    ["set variable wins over its default", "port: ${PORT:3111}", "port: 4000"],
    ["default of an unset variable", "port: ${HTTP_PORT:3111}", "port: 3111"],
    ["default holding colons", "url: ${URL:redis://localhost:6379}", "url: redis://localhost:6379"],
    ["empty default", "token: '${TOKEN:}'", "token: ''"],
    ["variable set to the empty string", "x: '${EMPTY}'", "x: ''"],
    ["several on one line", "a: ${HOST}:${PORT}", "a: 0.0.0.0:4000"],
    ["inside double quotes", 'a: "${HOST} # not a comment"', 'a: "0.0.0.0 # not a comment"'],
    ["unset in a comment line", "# password: ${SECRET}\nx: 1", "# password: ${SECRET}\nx: 1"],
    ["unset in a trailing comment", "x: ${PORT} # was ${OLD}", "x: 4000 # was ${OLD}"],
    ["hash without space is no comment", "x: a#${HOST}", "x: a#0.0.0.0"],
    ["apostrophe inside a plain scalar", "x: don't # ${OLD}", "x: don't # ${OLD}"],
    ["dollar without braces", "x: $HOST", "x: $HOST"],
    ["no variables", "workers: []\n", "workers: []\n"],
    ["a number stays a plain scalar", "port: ${NEGATIVE}", "port: -1"],
    ["a whole scalar with ' #' is quoted", "token: ${HASH} # note", 'token: "abc #def" # note'],
    ["a whole scalar with ': ' is quoted", "token: ${COLON}", 'token: "a: b"'],
    ["a whole scalar starting with '&' is quoted", "- ${ANCHOR}", '- "&x"'],
    ["a flow list in a value stays text", "a: [${LIST}, x]", 'a: ["[a, b]", x]'],
    ["escaped in double quotes", 'q: "${QUOTES}"', 'q: "say \\"hi\\" it\'s \\\\"'],
    ["doubled apostrophes in single quotes", "q: '${QUOTES}'", `q: 'say "hi" it''s \\'`],
    [
      "indented in a block scalar",
      "cert: |\n  ${LINES}\nx: 1",
      "cert: |\n  line 1\n  line 2\nx: 1",
    ],
    ["a '#' in a block scalar is text", "a: >-\n  x # ${HOST}\n", "a: >-\n  x # 0.0.0.0\n"],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => {
      const result = expandEnv(input, env);
      assert.ok(result.ok);
      assert.equal(result.text, expected);
    });
  }
});

Deno.test("expandEnv() names the line and column of an unset variable", () => {
  const result = expandEnv("# ${IN_COMMENT}\nhost: 127.0.0.1\n  port: ${NOPE}\n", env);
  assert.deepEqual(result, { ok: false, name: "NOPE", offset: 40, line: 3, column: 9 });
});

Deno.test("expandEnv() maps expanded offsets back to the original text", () => {
  const text = "a: ${HOST}\nb: ${MISSING:x}\nc: 1";
  const result = expandEnv(text, env);
  assert.ok(result.ok);
  assert.equal(result.text, "a: 0.0.0.0\nb: x\nc: 1");
  const c = result.text.indexOf("c:");
  assert.equal(result.toOriginal(c), text.indexOf("c:"));
  assert.equal(result.toOriginal(result.text.indexOf("b:")), text.indexOf("b:"));
  // Inside a substituted value: the start of its `${`.
  assert.equal(result.toOriginal(result.text.indexOf("0.0") + 2), text.indexOf("${HOST}"));
});

Deno.test("expandEnv() maps the place of an empty value to its ${", () => {
  const text = "a: ${EMPTY:}\nb: 1";
  const result = expandEnv(text, () => undefined);
  assert.ok(result.ok);
  assert.equal(result.text, "a: \nb: 1");
  assert.equal(result.toOriginal(3), text.indexOf("${"));
  assert.equal(result.toOriginal(result.text.indexOf("b:")), text.indexOf("b:"));
});

Deno.test("expandEnv() refuses a value it cannot write where it stands, saying to quote it", async (t) => {
  const cases: [string, string, string][] = [
    ["a line break in a plain scalar", "token: ${LINES}", "holds a line break"],
    ["a line break in single quotes", "token: '${LINES}'", "single quotes cannot hold"],
    ["' #' inside a longer plain scalar", "token: x${HASH}", 'holds "#"'],
    ["a nested variable in a default", "host: ${NOPE:${HOST}}", "a default cannot hold"],
  ];
  for (const [name, input, problem] of cases) {
    await t.step(name, () => {
      const result = expandEnv(input, env);
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.problem?.includes(problem), JSON.stringify(result));
      assert.equal(!result.ok && result.column, input.indexOf("${") + 1);
    });
  }
});

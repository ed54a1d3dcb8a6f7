import assert from "node:assert/strict";
import { z } from "zod";
import { ConfigError } from "./error.ts";
import { parseConfig, type ParseConfigOptions } from "./parse.ts";

const HttpConfig = z.strictObject({
  port: z.number().int().default(3111),
  host: z.string().default("127.0.0.1"),
  cors: z.strictObject({ allowed_origins: z.array(z.string()).default(["localhost"]) }).prefault(
    {},
  ),
  middleware: z.array(z.strictObject({ function_id: z.string() })).optional(),
});
const StateConfig = z.strictObject({ adapter: z.string().default("memory") });

const FILE = "engine-config.yaml";
const options = (env: Record<string, string> = {}): ParseConfigOptions => ({
  file: FILE,
  env: (name) => env[name],
  workerConfigs: {
    "engine-http": Object.assign((raw: unknown) => HttpConfig.parse(raw), { schema: HttpConfig }),
    "engine-state": (raw) => StateConfig.parse(raw),
  },
});

function errorOf(text: string, env: Record<string, string> = {}): ConfigError {
  const result = parseConfig(text, options(env));
  assert.ok(!result.ok, "expected the config to be refused");
  assert.ok(result.error instanceof ConfigError);
  return result.error;
}

Deno.test("parseConfig() names the file, line and field of each error", async (t) => {
  // [case, text, line, column, field path, start of the problem]
  const cases: [string, string, number, number, string, string][] = [
    [
      "unknown top-level key, a typo of a known one",
      "host: 127.0.0.1\nprot: 3\n",
      2,
      1,
      "prot",
      'Unknown field: did you mean "port"?',
    ],
    [
      "a typo of a required field is told at the typo, not as the field missing",
      "workers:\n  - nmae: orders\n    path: ./w\n",
      2,
      5,
      "workers[0].nmae",
      'Unknown field: did you mean "name"? ("name" is required)',
    ],
    [
      "a typo of a required field in a built-in worker's config",
      "workers:\n  - name: engine-http\n    config:\n      middleware:\n        - functon_id: auth::check\n",
      5,
      11,
      "workers[0].config.middleware[0].functon_id",
      'Unknown field: did you mean "function_id"? ("function_id" is required)',
    ],
    [
      "unknown key in a nested object",
      "console:\n  port: 1\n  hots: x\n",
      3,
      3,
      "console.hots",
      "Unknown field",
    ],
    ["bad port", "port: 70000\n", 1, 7, "port", "Must be at most 65535, got 70000"],
    ["negative port", "console:\n  port: -1\n", 2, 9, "console.port", "Must be at least 0, got -1"],
    ["wrong type", 'port: "49134"\n', 1, 7, "port", 'Expected a number, got "49134"'],
    [
      "a number where text is meant",
      "auth:\n  token: 0123\n",
      2,
      10,
      "auth.token",
      "Expected a string, got 123: quote it",
    ],
    ["bare workers key", "workers:\n", 1, 9, "workers", "Expected a list, got null"],
    [
      "wrong type nested in a worker config",
      "workers:\n  - name: engine-state\n  - name: engine-http\n    config:\n      port: abc\n",
      5,
      13,
      "workers[1].config.port",
      'Expected a number, got "abc"',
    ],
    [
      "unknown key in a worker config, a typo of a field of its schema",
      "workers:\n  - name: engine-http\n    config:\n      cors:\n        alowed_origins: [a]\n",
      5,
      9,
      "workers[0].config.cors.alowed_origins",
      'Unknown field: did you mean "allowed_origins"?',
    ],
    [
      "unknown key in the config of a worker whose schema is not known",
      "workers:\n  - name: engine-state\n    config:\n      adaptr: x\n",
      4,
      7,
      "workers[0].config.adaptr",
      "Unknown field",
    ],
    [
      "duplicate worker names",
      "workers:\n  - name: a\n    path: ./a\n  - name: a\n    path: ./b\n",
      4,
      11,
      "workers[1].name",
      'Duplicate worker name "a": already used by workers[0]',
    ],
    [
      "invalid worker name",
      "workers:\n  - name: ../up\n    path: ./a\n",
      2,
      11,
      "workers[0].name",
      'Invalid worker name "../up"',
    ],
    [
      "unknown worker without a path",
      "workers:\n  - name: mystery\n",
      2,
      11,
      "workers[0].name",
      'Unknown worker "mystery": give it a "path", or use a built-in worker: "engine-http", "engine-state"',
    ],
    [
      "missing field points at its parent map",
      "rest_api:\n  middleware:\n    - priority: 1\n",
      3,
      7,
      "rest_api.middleware[0].function_id",
      "Missing required field",
    ],
    [
      "bad middleware phase",
      "rest_api:\n  middleware:\n    - function_id: auth::check\n      phase: onRequest\n",
      4,
      14,
      "rest_api.middleware[0].phase",
      'Expected "preHandler", got "onRequest"',
    ],
    [
      "undefined variable with its line",
      "# ${IN_A_COMMENT}\nhost: 127.0.0.1\nport: ${ENGINE_PORT}\n",
      3,
      7,
      "port",
      'Environment variable "ENGINE_PORT" is not set and has no default',
    ],
    [
      "undefined variable in a worker config",
      "workers:\n  - name: engine-http\n    config:\n      host: ${HTTP_HOST}\n",
      4,
      13,
      "workers[0].config.host",
      'Environment variable "HTTP_HOST"',
    ],
    [
      "undefined variable in a flow list, where its { would open a map",
      "logs:\n  redact: [a, ${NOPE}]\n",
      2,
      15,
      "logs.redact[1]",
      'Environment variable "NOPE"',
    ],
    [
      "undefined variable in a flow map",
      "console: {enabled: false, port: ${NOPE}}\n",
      1,
      33,
      "console.port",
      'Environment variable "NOPE"',
    ],
    [
      "a local worker named like a built-in one",
      "workers:\n  - name: engine-state\n    path: ./state\n",
      3,
      11,
      "workers[0].path",
      '"engine-state" is the name of a built-in worker, which takes no path: rename the local ' +
      "worker (in its engine.worker.yaml too), or remove this path for the built-in one",
    ],
    [
      "a file starting with a byte order mark counts columns from after it",
      "\ufeffprot: 1\n",
      1,
      1,
      "prot",
      "Unknown field",
    ],
    ["YAML syntax error", "host: 127.0.0.1\nworkers: [\n  - a\n", 3, 3, "", "Invalid YAML: "],
    [
      "two YAML documents",
      "port: 1\n---\nport: 2\n",
      2,
      1,
      "",
      'Invalid YAML: the file holds more than one document ("---"): keep one',
    ],
    [
      "an integer beyond 2^53",
      "port: 123456789012345678901234567890\n",
      1,
      7,
      "port",
      "Must be at most 9007199254740991, got 1.2345678901234568e+29",
    ],
    [
      "duplicate YAML key",
      "port: 1\nhost: a\nport: 2\n",
      3,
      1,
      "",
      "Invalid YAML: Map keys must be unique",
    ],
    [
      "console exposed without a token",
      "console:\n  host: 0.0.0.0\n",
      2,
      9,
      "console.host",
      'Console bound to "0.0.0.0" requires a token',
    ],
    [
      "position after a substituted variable",
      "host: ${HOST}\nlogs: { max_entries: 0 }\n",
      2,
      22,
      "logs.max_entries",
      "Must be greater than 0, got 0",
    ],
    [
      "a channel limit that is not a positive integer",
      "channels:\n  max_total: 100\n  max_per_worker: 0.5\n",
      3,
      19,
      "channels.max_per_worker",
      "Expected an integer, got 0.5",
    ],
    [
      "an unknown key under channels",
      "channels: { max_per_workers: 10 }\n",
      1,
      13,
      "channels.max_per_workers",
      'Unknown field: did you mean "max_per_worker"?',
    ],
    [
      "a variable that is set but empty, at its ${",
      "host: 127.0.0.1\nport: ${EMPTY:49134}   # the engine\n",
      2,
      7,
      "port",
      "Expected a number, got null",
    ],
  ];
  for (const [name, text, line, column, path, problem] of cases) {
    await t.step(name, () => {
      const error = errorOf(text, { HOST: "a-much-longer-host-name", EMPTY: "" });
      assert.deepEqual(
        { file: error.file, line: error.line, column: error.column, path: error.path },
        { file: FILE, line, column, path },
        error.message,
      );
      assert.ok(error.problem.startsWith(problem), error.problem);
      const place = path === ""
        ? `${FILE}:${line}:${column}: `
        : `${FILE}:${line}:${column}: ${path}: `;
      assert.equal(error.message, place + error.problem);
      assert.ok(!error.message.includes("\n"), "one line");
    });
  }
});

Deno.test("parseConfig() reports the first problem in file order", () => {
  const error = errorOf(
    "workers:\n  - name: engine-http\n    config: { port: x }\nprot: 1\nport: -5\n",
  );
  assert.equal(error.line, 3);
  assert.equal(error.path, "workers[0].config.port");
});

Deno.test("parseConfig() fills every default", async (t) => {
  for (const text of ["", "# only a comment\n", "workers: []\n", "{}\n"]) {
    await t.step(JSON.stringify(text), () => {
      const result = parseConfig(text, options());
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.deepEqual(result.config, {
        host: "127.0.0.1",
        port: 49134,
        invocation_timeout_ms: 30_000,
        max_frame_bytes: 16 * 1024 * 1024,
        shutdown_timeout_ms: 8000,
        auth: {},
        workers: [],
        console: { host: "127.0.0.1", port: 3113, enabled: true },
        rest_api: { middleware: [] },
        logs: { max_entries: 10_000, redact: [], level: "info", format: "text" },
        traces: { max_spans: 10_000 },
        channels: { max_per_worker: 1024, max_total: 16_384 },
      });
    });
  }
});

Deno.test("parseConfig() keeps each built-in worker's parsed config", () => {
  const text = [
    "workers:",
    "  - name: engine-http",
    "    config:",
    "      port: ${HTTP_PORT:3111}",
    "  - name: engine-state",
    "  - name: math",
    "    path: ./workers/math",
    "    config: { anything: [1, 2] }",
    "rest_api:",
    "  middleware:",
    "    - function_id: auth::check",
    "",
  ].join("\n");
  const result = parseConfig(text, options({ HTTP_PORT: "8080" }));
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  assert.deepEqual(result.config.workers, [
    {
      name: "engine-http",
      config: { port: 8080, host: "127.0.0.1", cors: { allowed_origins: ["localhost"] } },
    },
    { name: "engine-state", config: { adapter: "memory" } },
    { name: "math", path: "./workers/math", config: { anything: [1, 2] } },
  ]);
  assert.deepEqual(result.config.rest_api.middleware, [
    { function_id: "auth::check", phase: "preHandler", priority: 0 },
  ]);
});

Deno.test("parseConfig() without workerConfigs accepts the built-in names unchecked", () => {
  const text = "workers:\n  - name: engine-queue\n    config: { whatever: 1 }\n  - name: other\n";
  const result = parseConfig(text, { file: FILE, env: () => undefined });
  assert.ok(!result.ok);
  assert.equal(result.error.path, "workers[1].name");
  assert.match(result.error.problem, /"engine-http", "engine-state", "engine-queue"/);
});

Deno.test("parseConfig() reports a worker parser's non-zod error at its config", () => {
  const result = parseConfig("workers:\n  - name: engine-http\n    config: { port: 1 }\n", {
    file: FILE,
    env: () => undefined,
    workerConfigs: {
      "engine-http": () => {
        throw new Error("Port 1 is reserved");
      },
    },
  });
  assert.ok(!result.ok);
  assert.equal(result.error.message, `${FILE}:3:13: workers[0].config: Port 1 is reserved`);
});

Deno.test("parseConfig() takes tokens from the file or the environment", async (t) => {
  const cases: [string, string, Record<string, string>, { auth?: string; console?: string }][] = [
    ["none", "workers: []\n", {}, {}],
    ["from the file", "auth: { token: a }\nconsole: { token: b }\n", { ENGINE_TOKEN: "x" }, {
      auth: "a",
      console: "b",
    }],
    ["from the environment", "workers: []\n", { ENGINE_TOKEN: "x", ENGINE_CONSOLE_TOKEN: "y" }, {
      auth: "x",
      console: "y",
    }],
    ["empty variables count as unset", "workers: []\n", {
      ENGINE_TOKEN: "",
      ENGINE_CONSOLE_TOKEN: "",
    }, {}],
    ["exposed console with an env token", "console: { host: 0.0.0.0 }\n", {
      ENGINE_CONSOLE_TOKEN: "y",
    }, { console: "y" }],
  ];
  for (const [name, text, env, tokens] of cases) {
    await t.step(name, () => {
      const result = parseConfig(text, options(env));
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.equal(result.config.auth.token, tokens.auth);
      assert.equal(result.config.console.token, tokens.console);
    });
  }
});

Deno.test("parseConfig() takes a variable's value as text: it is not cut at '#' and adds no fields", async (t) => {
  const cases: [string, string, Record<string, string>, string][] = [
    ["' #' in a token", "auth:\n  token: ${TOKEN}\n", { TOKEN: "s3cr3t #tail" }, "s3cr3t #tail"],
    ["': ' in a token", "auth: { token: ${TOKEN} }\n", { TOKEN: "a: b" }, "a: b"],
    ["quotes in a quoted token", 'auth:\n  token: "${TOKEN}"\n', { TOKEN: 'x"y\\' }, 'x"y\\'],
  ];
  for (const [name, text, env, token] of cases) {
    await t.step(name, () => {
      const result = parseConfig(text, options(env));
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      assert.equal(result.config.auth.token, token);
    });
  }
  await t.step("a line break that would add a field", () => {
    const error = errorOf("auth:\n  token: ${TOKEN}\n", { TOKEN: "x\nport: 1" });
    assert.match(
      error.message,
      /^engine-config\.yaml:2:10: auth\.token: Environment variable "TOKEN" holds a line break/,
    );
  });
});

Deno.test("parseConfig() refuses a token that is not printable ASCII, naming where it comes from", async (t) => {
  const ascii = "is not printable ASCII";
  const cases: [string, string, Record<string, string>, string][] = [
    [
      "auth.token in the file",
      "port: 1\nauth:\n  token: pässwort\n",
      {},
      `${FILE}:3:10: auth.token: Invalid token: character 2 (U+00E4) ${ascii}`,
    ],
    [
      "console.token in the file",
      'console:\n  token: "€uro"\n',
      {},
      `${FILE}:2:10: console.token: Invalid token: character 1 (U+20AC) ${ascii}`,
    ],
    [
      "a token from a variable of the file",
      "auth: { token: ${T} }\n",
      { T: "x€" },
      `${FILE}:1:16: auth.token: Invalid token: character 2 (U+20AC) ${ascii}`,
    ],
    [
      "ENGINE_TOKEN",
      "workers: []\n",
      { ENGINE_TOKEN: "ü" },
      `${FILE}:1:1: auth.token: Environment variable ENGINE_TOKEN: Invalid token: character 1 (U+00FC) ${ascii}`,
    ],
    [
      "ENGINE_CONSOLE_TOKEN",
      "workers: []\n",
      { ENGINE_CONSOLE_TOKEN: "a b " },
      `${FILE}:1:1: console.token: Environment variable ENGINE_CONSOLE_TOKEN: Invalid token: it starts or ends with a space`,
    ],
  ];
  for (const [name, text, env, message] of cases) {
    await t.step(name, () => {
      const error = errorOf(text, env);
      assert.ok(error.message.startsWith(message), error.message);
    });
  }
});

Deno.test("parseConfig() lets a loopback or disabled console run without a token", async (t) => {
  for (
    const console of [
      "{ host: localhost }",
      "{ host: '::1' }",
      "{ host: 127.0.0.2 }",
      "{ host: 0.0.0.0, enabled: false }",
    ]
  ) {
    await t.step(console, () => {
      const result = parseConfig(`console: ${console}\n`, options());
      assert.ok(result.ok, result.ok ? "" : result.error.message);
    });
  }
});

Deno.test("parseConfig() suggests a field only for a near typo of one", () => {
  assert.equal(errorOf("frobnicate: 1\n").message, `${FILE}:1:1: frobnicate: Unknown field`);
  assert.equal(
    errorOf("console:\n  prot: 1\n  x: 2\n").message,
    `${FILE}:2:3: console.prot: Unknown field (also "x"): did you mean "port"?`,
  );
});

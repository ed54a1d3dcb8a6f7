import assert from "node:assert/strict";
import { parseConfig as parseStateConfig } from "../../workers/state/config.ts";
import { loadConfigFile } from "./load.ts";
import { EngineConfig, isValidWorkerName } from "./schema.ts";

Deno.test("isValidWorkerName() follows the worker name rule", async (t) => {
  const cases: [string, boolean][] = [
    ["math-worker", true],
    ["engine-http", true],
    ["a.b_c-1", true],
    ["A9", true],
    ["", false],
    [".hidden", false],
    ["a..b", false],
    ["../up", false],
    ["a/b", false],
    ["a b", false],
    ["naïve", false],
  ];
  for (const [name, valid] of cases) {
    await t.step(JSON.stringify(name), () => assert.equal(isValidWorkerName(name), valid));
  }
});

Deno.test("EngineConfig checks ports and limits", async (t) => {
  const cases: [string, unknown, boolean][] = [
    ["port 0", { port: 0 }, true],
    ["port 65535", { port: 65535 }, true],
    ["port 65536", { port: 65536 }, false],
    ["fractional port", { port: 1.5 }, false],
    ["console port -1", { console: { port: -1 } }, false],
    ["zero time-out", { invocation_timeout_ms: 0 }, false],
    [
      "middleware priority",
      { rest_api: { middleware: [{ function_id: "auth::check", priority: -3 }] } },
      true,
    ],
    ["middleware id that is no function id", {
      rest_api: { middleware: [{ function_id: "auth" }] },
    }, false],
    ["worker with unknown key", { workers: [{ name: "a", image: "x" }] }, false],
    ["worker with empty path", { workers: [{ name: "a", path: "" }] }, false],
  ];
  for (const [name, input, valid] of cases) {
    await t.step(name, () => assert.equal(EngineConfig.safeParse(input).success, valid));
  }
});

Deno.test("engine-config.yaml at the repository top is a valid config", async () => {
  const file = new URL("../../engine-config.yaml", import.meta.url).pathname;
  const result = await loadConfigFile(file, {
    env: () => undefined,
    workerConfigs: { "engine-http": (raw) => raw, "engine-state": parseStateConfig },
  });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const { config } = result;
  assert.deepEqual([config.host, config.port], ["127.0.0.1", 49134]);
  assert.deepEqual(config.console, { host: "127.0.0.1", port: 3113, enabled: true });
  assert.deepEqual(config.workers.map((worker) => worker.name), ["engine-http", "engine-state"]);
  assert.deepEqual(config.workers[0]!.config, {
    port: 3111,
    host: "127.0.0.1",
    default_timeout: 30000,
    concurrency_request_limit: 1024,
    cors: {
      allowed_origins: ["localhost"],
      allowed_methods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
    },
  });
  assert.deepEqual(
    config.workers[1]!.config,
    parseStateConfig({ adapter: "sqlite", path: "./data/state.db" }),
  );
});

Deno.test("engine-config.yaml at the repository top takes its ports from the environment", async () => {
  const file = new URL("../../engine-config.yaml", import.meta.url).pathname;
  const env: Record<string, string> = {
    ENGINE_PORT: "47400",
    ENGINE_HTTP_PORT: "47401",
    ENGINE_CONSOLE_PORT: "47402",
  };
  const result = await loadConfigFile(file, {
    env: (name) => env[name],
    workerConfigs: { "engine-http": (raw) => raw, "engine-state": parseStateConfig },
  });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  const { config } = result;
  assert.equal(config.port, 47400);
  assert.equal((config.workers[0]!.config as { port: number }).port, 47401);
  assert.equal(config.console?.port, 47402);
});

/**
 * A token edited into the config file of a running engine applies at the
 * next restart, but is masked in the log from the reload on: a worker given
 * the new token early, or one printing the file, must not put it in the log
 * (the terminal, `engine::logs::list`, the console). Real engine and CLI
 * processes.
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";

const OLD = "pending-old-token-123";
const NEW_AUTH = "pending-new-auth-456";
const NEW_CONSOLE = "pending-new-console-789";

const config = (auth: string, consoleToken: string) =>
  `host: 127.0.0.1
port: 0
auth:
  token: ${auth}
console:
  enabled: false
  token: ${consoleToken}
workers: []
`;

/** `engine trigger` of `id` with the token the engine runs with. */
function trigger(url: string, id: string, payload: unknown) {
  return runCli(
    ["trigger", `--function-id=${id}`, `--payload=${JSON.stringify(payload)}`, "--url", url],
    { env: { ENGINE_TOKEN: OLD } },
  );
}

Deno.test("auth.token and console.token edited live: the new tokens are masked in log lines before the restart that applies them", async () => {
  const { dir, file } = await tempConfig(config(OLD, `${OLD}-console`));
  const engine = await spawnEngine({ config: file });
  try {
    await Deno.writeTextFile(file, config(NEW_AUTH, NEW_CONSOLE));
    await engine.waitForLine(/Config change of "console\.token" takes effect/);
    await engine.waitForLine(/Config reloaded$/);

    const message = `env ENGINE_TOKEN=${NEW_AUTH} ENGINE_CONSOLE_TOKEN=${NEW_CONSOLE}`;
    const logged = await trigger(engine.url, "engine::log::info", { message });
    assert.equal(logged.code, 0, logged.stderr);
    const line = await engine.waitForLine(/env ENGINE_TOKEN=/);
    assert.match(line, /env ENGINE_TOKEN=\[redacted\] ENGINE_CONSOLE_TOKEN=\[redacted\]$/);

    const listed = await trigger(engine.url, "engine::logs::list", { text: "env ENGINE_TOKEN" });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /ENGINE_CONSOLE_TOKEN=\[redacted\]/);
    for (const token of [NEW_AUTH, NEW_CONSOLE]) {
      assert.ok(!listed.stdout.includes(token), "engine::logs::list shows no new token");
      assert.deepEqual(engine.lines.filter((l) => l.includes(token)), []);
    }

    // Still not applied for auth: the engine accepts only the token it started with.
    const refused = await runCli([
      "trigger",
      "--function-id=engine::health::check",
      "--url",
      engine.url,
    ], {
      env: { ENGINE_TOKEN: NEW_AUTH },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /\(HTTP 401\)/);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * `engine worker list/add/remove` against a running engine that refuses the
 * command's token: they say so (the token's problem, in the CLI's words), not
 * "No engine is running". `list` fails, as the file alone would show the
 * engine's workers stopped; `add` and `remove` edit the file, which the engine
 * reads itself, and warn that they cannot follow it. An engine process with
 * `auth.token`; the CLI with no token and with a wrong one.
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";

const TOKEN = "worker-commands-token-1";

Deno.test("engine worker list/add/remove: a refused token is said as such, and the file edits stand", async () => {
  const { dir, file } = await tempConfig(
    `host: 127.0.0.1\nport: 0\nauth:\n  token: ${TOKEN}\nconsole:\n  enabled: false\n`,
  );
  const engine = await spawnEngine({ config: file });
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(["worker", ...args, "--config", file], { cwd: dir, env });
  try {
    for (
      const [env, says] of [
        [{}, /the engine requires a token \(HTTP 401\): set ENGINE_TOKEN/],
        [
          { ENGINE_TOKEN: "wrong-token-2" },
          /the engine refused the token in ENGINE_TOKEN \(HTTP 401\)/,
        ],
      ] as const
    ) {
      const list = await cli(["list"], env);
      assert.equal(list.code, 1, list.stderr);
      assert.match(list.stderr, says);
      assert.doesNotMatch(list.stdout + list.stderr, /No engine is running/);
    }

    const add = await cli(["add", "engine-state"], { ENGINE_TOKEN: "wrong-token-2" });
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /Added "engine-state"/);
    assert.match(
      add.stderr,
      /^Warning: .*HTTP 401.*\. The engine reads .* and starts "engine-state" itself; this command cannot follow it without the token$/m,
    );
    assert.doesNotMatch(add.stdout + add.stderr, /No engine is running/);
    // The engine read the edit itself: engine-state runs.
    await engine.waitForLine(/Started worker engine-state/);
    const listed = await cli(["list"], { ENGINE_TOKEN: TOKEN });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /engine-state/);

    const remove = await cli(["remove", "engine-state"], {});
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(
      remove.stderr,
      /^Warning: .*HTTP 401.*\. The engine reads .* and stops "engine-state" itself; this command cannot follow it without the token$/m,
    );
    assert.ok(!(add.stderr + remove.stderr).includes(TOKEN), "the engine's token is never shown");
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../tests/support/engine_process.ts";

const BASE = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\n";

/** The two lines `engine trigger --function-id=<id>` prints on stderr for a function not found. */
async function notFound(url: string, id: string): Promise<[string, string]> {
  const r = await runCli(["trigger", `--function-id=${id}`], { env: { ENGINE_URL: url } });
  assert.equal(r.code, 1, r.stderr);
  const [error, hint] = r.stderr.trim().split("\n");
  assert.equal(error, `Error: function_not_found: Function ${id} not found`);
  return [error!, hint ?? ""];
}

Deno.test("engine trigger of a built-in worker's function the engine does not run says which worker to add", async () => {
  const { file } = await tempConfig(`${BASE}workers: []\n`);
  const engine = await spawnEngine({ config: file });
  try {
    const cases: [string, string][] = [
      ["state::get", "engine-state"],
      ["state::set", "engine-state"],
      ["engine::queue::list", "engine-queue"],
      ["engine::queue::enqueue", "engine-queue"],
    ];
    for (const [id, worker] of cases) {
      const [, hint] = await notFound(engine.url, id);
      assert.equal(
        hint,
        `"${id}" is a function of the built-in worker "${worker}", which this engine does not ` +
          `run: add it with "engine worker add ${worker}"`,
        id,
      );
    }
  } finally {
    await engine.stop();
  }
});

Deno.test("engine trigger of a function of a built-in worker that could not start points at the reason", async () => {
  const { file } = await tempConfig(`${BASE}workers: []\n`);
  const engine = await spawnEngine({ config: file });
  try {
    // Redis on port 1 refuses at once: engine-state, added to the running engine, cannot start.
    await Deno.writeTextFile(
      file,
      `${BASE}workers:\n  - name: engine-state\n    config:\n      adapter: redis\n` +
        `      url: redis://127.0.0.1:1\n`,
    );
    await engine.waitForLine(/Config reloaded: could not start "engine-state"/);
    const [, hint] = await notFound(engine.url, "state::get");
    assert.equal(
      hint,
      `"state::get" is a function of the built-in worker "engine-state", which could not start: ` +
        `"engine worker list" shows why`,
    );
  } finally {
    await engine.stop();
  }
});

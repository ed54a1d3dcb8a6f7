/**
 * What a new user trips on first, run as they run it: the CLI in a real
 * process, from the folder they happen to be in.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../support/engine_process.ts";

Deno.test("engine worker commands run in a folder inside a project name the project's config instead of suggesting a new one", async () => {
  const root = await Deno.makeTempDir({ prefix: "engine-test-" });
  try {
    const config = join(root, "engine-config.yaml");
    await Deno.writeTextFile(config, "workers: []\n");
    const worker = join(root, "workers", "greeter");
    await Deno.mkdir(worker, { recursive: true });
    const cases: [string[], string, string][] = [
      [["worker", "add", "."], worker, "../../engine-config.yaml"],
      [["worker", "list"], worker, "../../engine-config.yaml"],
      [["worker", "remove", "greeter"], join(root, "workers"), "../engine-config.yaml"],
    ];
    for (const [args, cwd, relativeConfig] of cases) {
      const r = await runCli(args, { env: { ENGINE_CALLER_DIR: cwd } });
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.equal(
        r.stderr.trim(),
        `Error: No config file at "${join(cwd, "engine-config.yaml")}": the nearest one is ` +
          `"${config}": run the command in "${root}", or add --config ${relativeConfig}`,
        args.join(" "),
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

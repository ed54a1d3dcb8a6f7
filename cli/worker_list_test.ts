import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./main.ts";

Deno.test("engine worker list of an invalid config with no engine fails naming the place, not 'No workers'", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(file, "workers:\n\t- name: engine-state\n");
    for (const json of [[], ["--json"]]) {
      const out: string[] = [];
      const err: string[] = [];
      // Port 1: no engine there.
      const code = await main(
        ["worker", "list", "--config", file, "--url=ws://127.0.0.1:1", ...json],
        { out: (line) => out.push(line), err: (line) => err.push(line) },
      );
      assert.equal(code, 1, json.join(""));
      assert.deepEqual(out, []);
      assert.equal(
        err.join("\n"),
        `Error: ${file}:2:1: Invalid YAML: Tabs are not allowed as indentation`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

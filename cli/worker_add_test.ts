import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./main.ts";

Deno.test("engine worker add of a name that is no folder suggests the built-in worker it is a typo of", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(file, "workers: []\n");
    const cases: [string, RegExp][] = [
      ["engine-stat", /^Error: No folder at ".*engine-stat": did you mean "engine-state"\?$/],
      ["engine_http", /^Error: No folder at ".*engine_http": did you mean "engine-http"\?$/],
      ["nope", /^Error: No folder at ".*nope" \(built-in workers: "engine-http", /],
    ];
    for (const [target, message] of cases) {
      const err: string[] = [];
      const code = await main(
        ["worker", "add", target, "--no-wait", "--config", file],
        { out: () => {}, err: (line) => err.push(line) },
      );
      assert.equal(code, 1, target);
      assert.match(err.join("\n"), message);
      assert.equal(await Deno.readTextFile(file), "workers: []\n");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine worker add of the name of a local worker in the config says which folder to give", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    const text = "workers:\n  - name: math-worker\n    path: ./workers/math-worker\n";
    await Deno.writeTextFile(file, text);
    const err: string[] = [];
    const code = await main(
      ["worker", "add", "math-worker", "--no-wait", "--config", file],
      { out: () => {}, err: (line) => err.push(line) },
    );
    assert.equal(code, 1);
    assert.match(
      err.join("\n"),
      new RegExp(
        `^Error: No folder at ".*math-worker": "math-worker" is in ${file} \\(line 2\\) ` +
          `with path \\./workers/math-worker: give the folder, as in ` +
          `"engine worker add \\./workers/math-worker --force" to restart it$`,
      ),
    );
    assert.equal(await Deno.readTextFile(file), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

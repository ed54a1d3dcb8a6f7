/**
 * The bundled single-file engine runs from an empty folder: nothing is read
 * from the source tree at run time (what `deno compile` relies on too).
 */
import assert from "node:assert/strict";
import { bundleEngine, spawnEngine } from "../support/engine_process.ts";
import { RawWorker } from "../support/raw_worker.ts";

Deno.test("the bundled engine starts from an empty folder and answers a call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "engine-bundle-" });
  const bundle = `${dir}/engine.js`;
  await bundleEngine(bundle);
  const run = `${dir}/run`;
  await Deno.mkdir(run);
  await Deno.writeTextFile(
    `${run}/engine-config.yaml`,
    "port: 0\nworkers:\n  - name: engine-state\n    config:\n      adapter: memory\nconsole:\n  enabled: false\n",
  );
  const engine = await spawnEngine({ config: "engine-config.yaml", cwd: run, entry: bundle });
  const w = await RawWorker.connect(engine.url);
  const set = await w.call("state::set", { scope: "s", key: "k", value: 42 });
  assert.deepEqual(set.result, { old_value: null, new_value: 42 });
  const get = await w.call("state::get", { scope: "s", key: "k" });
  assert.equal(get.result, 42);
  await w.close();
  assert.equal(await engine.stop(), 0);
});

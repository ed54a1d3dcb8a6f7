import assert from "node:assert/strict";
import { RawWorker } from "../tests/support/raw_worker.ts";
import { startReloadHarness } from "./_reload_testing.ts";

const BASE = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers:\n";
const state = (synchronous: string) =>
  `${BASE}  - name: engine-state\n    config:\n      path: ./state.db\n      synchronous: ${synchronous}\n`;

Deno.test("calls to engine-state made while a config reload restarts it wait for it instead of failing", async () => {
  const harness = await startReloadHarness(
    "reload-hold-test-",
    BASE.replace("workers:\n", "workers: []\n"),
  );
  const { engine, edit } = harness;
  const worker = await RawWorker.connect(engine.url);
  try {
    assert.equal(await edit(state("normal")), "apply");
    const set = await worker.call("state::set", { scope: "s", key: "k", value: 42 });
    assert.equal(set.error, undefined);
    // Readers keep calling while the config flips three times, each a restart of engine-state.
    let reading = true;
    const failures: unknown[] = [];
    let reads = 0;
    const reader = async () => {
      while (reading) {
        const frame = await worker.call("state::get", { scope: "s", key: "k" });
        reads++;
        if (frame.error !== undefined || frame.result !== 42) failures.push(frame.error ?? frame);
      }
    };
    const readers = Array.from({ length: 8 }, reader);
    // And one call exactly when the functions go away: the moment a restart leaves them missing.
    const api = engine.builtinApi("engine");
    const inTheGap: Promise<unknown>[] = [];
    const unsubscribe = engine.engine.subscribe((event) => {
      if (event.type === "functions_changed" && event.removed.includes("state::get")) {
        inTheGap.push(api.call("state::get", { scope: "s", key: "k" }).catch((e) => e.code));
      }
    });
    for (const synchronous of ["full", "normal", "full"]) {
      assert.equal(await edit(state(synchronous)), "apply");
      assert.equal(
        engine.logs.query({ worker: "engine" }).at(-1)?.message,
        'Config reloaded: restarted "engine-state"',
      );
    }
    reading = false;
    await Promise.all(readers);
    unsubscribe();
    assert.deepEqual(await Promise.all(inTheGap), [42, 42, 42]);
    assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${reads} reads failed`);
  } finally {
    await worker.close();
    await harness.stop();
  }
});

/**
 * Workers survive an engine restart without code: they reconnect and
 * register again (our SDK and the npm iii-sdk alike).
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";

Deno.test("after the engine is killed with SIGKILL and restarted, workers re-register by themselves", async () => {
  const port = freePort();
  const { file } = await tempConfig(`port: ${port}\nworkers: []\nconsole:\n  enabled: false\n`);
  let engine = await spawnEngine({ config: file });
  const env = { ENGINE_URL: engine.url };
  const ours = await spawnWorker("tests/fixtures/core/sdk_worker.ts", {
    ...env,
    WORKER_NS: "ours",
  });
  const iii = await spawnWorker("tests/fixtures/core/iii_worker.ts", env);
  try {
    let caller = await RawWorker.connect(engine.url);
    await waitForFunctions(caller, ["ours::hello", "iii::hello"]);
    await caller.close();

    assert.equal(await engine.stop("SIGKILL"), 137);
    engine = await spawnEngine({ config: file });
    caller = await RawWorker.connect(engine.url);
    await waitForFunctions(caller, ["ours::hello", "iii::hello", "ours::relay"], 15_000);
    const r = await caller.call("ours::relay", {
      target: "iii::hello",
      payload: { name: "again" },
    });
    assert.deepEqual(r.result.relayed, { greeting: "hello again from iii" });
    await caller.close();
  } finally {
    await ours.stop();
    await iii.stop("SIGKILL");
    await engine.stop();
  }
});

/**
 * Workers survive an engine restart without code: they reconnect and
 * register again (our SDK and the npm iii-sdk alike).
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { freePort, freeStablePort } from "../support/ports.ts";

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

Deno.test("after an engine restart the same triggers are live again, none twice", async () => {
  const port = freeStablePort();
  const httpPort = freePort();
  const { file } = await tempConfig(
    `port: ${port}\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n  - name: engine-state\n    config: { adapter: memory }\n`,
  );
  let engine = await spawnEngine({ config: file });
  const replica = await spawnWorker("tests/fixtures/triggers/replica_worker.ts", {
    ENGINE_URL: engine.url,
  });
  /** The replica's triggers once both are listed active: `[id, type, config]`, sorted. */
  const live = async () => {
    const caller = await RawWorker.connect(engine.url);
    try {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const listed = ((await caller.call("engine::registered-triggers::list", {})).result
          .registered_triggers as Frame[]).filter((t) => t.function_id.startsWith("replica::"));
        if (listed.length >= 2 && listed.every((t) => t.status === "active")) {
          return listed.map((t) => JSON.stringify([t.id, t.trigger_type, t.config])).sort();
        }
        assert.ok(Date.now() < deadline, `not live: ${JSON.stringify(listed)}`);
      }
    } finally {
      await caller.close();
    }
  };
  try {
    const before = await live();
    assert.equal(before.length, 2);
    assert.equal(await engine.stop("SIGKILL"), 137);
    engine = await spawnEngine({ config: file });
    const after = await live();
    assert.deepEqual(after, before); // the same ids, types and configs, each once
    const r = await fetch(`http://127.0.0.1:${httpPort}/replica/hello`);
    assert.equal(r.status, 200);
    await r.body?.cancel();
    assert.deepEqual(await live(), before); // and no late replay added one
  } finally {
    await replica.stop();
    await engine.stop();
  }
});

/**
 * Our TypeScript SDK and the published npm iii-sdk@0.22.1, as separate
 * worker processes, calling each other through the engine.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

Deno.test("workers of our SDK and of iii-sdk 0.22.1 call each other through the engine", async (t) => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const env = { ENGINE_URL: engine.url };
  const ours = await spawnWorker("tests/fixtures/core/sdk_worker.ts", {
    ...env,
    WORKER_NS: "ours",
  });
  const peer = await spawnWorker("tests/fixtures/core/sdk_worker.ts", {
    ...env,
    WORKER_NS: "peer",
  });
  const iii = await spawnWorker("tests/fixtures/core/iii_worker.ts", env);
  const caller = await RawWorker.connect(engine.url);
  try {
    await waitForFunctions(caller, ["ours::relay", "peer::hello", "iii::relay", "iii::hello"]);

    await t.step("our SDK calls our SDK", async () => {
      const r = await caller.call("ours::relay", {
        target: "peer::hello",
        payload: { name: "ada" },
      });
      assert.equal(r.result.relayed.greeting, "hello ada from peer");
    });
    await t.step("iii-sdk calls our SDK", async () => {
      const r = await caller.call("iii::relay", {
        target: "ours::hello",
        payload: { name: "bob" },
      });
      assert.equal(r.result.relayed.greeting, "hello bob from ours");
    });
    await t.step("our SDK calls iii-sdk", async () => {
      const r = await caller.call("ours::relay", { target: "iii::hello", payload: { name: "cy" } });
      assert.deepEqual(r.result.relayed, { greeting: "hello cy from iii" });
    });
    await t.step("errors cross SDKs with their code and message", async () => {
      const a = await caller.call("ours::relay", { target: "iii::fail", payload: {} });
      assert.equal(a.result.error.code, "invocation_failed");
      assert.match(a.result.error.message, /iii refuses/);
      const b = await caller.call("iii::relay", { target: "ours::fail", payload: {} });
      assert.equal(b.result.error.code, "REFUSED");
      assert.match(b.result.error.message, /ours refuses/);
      const direct = await caller.call("ours::fail", {});
      assert.deepEqual({ code: direct.error.code, message: direct.error.message }, {
        code: "REFUSED",
        message: "ours refuses",
      });
    });
    await t.step("not-found reaches SDK callers as function_not_found", async () => {
      const a = await caller.call("ours::relay", { target: "nope::x", payload: {} });
      assert.equal(a.result.error.code, "function_not_found");
      assert.match(a.result.error.message, /Function nope::x not found/);
      const b = await caller.call("iii::relay", { target: "nope::x", payload: {} });
      assert.equal(b.result.error.code, "function_not_found");
    });
    await t.step("workers appear in engine::workers::list with their SDK", async () => {
      const r = await caller.call("engine::workers::list", {});
      const byName = Object.fromEntries(
        r.result.workers.map((w: { name: string; sdk: string }) => [w.name, w.sdk]),
      );
      assert.equal(byName["ours-worker"], "engine-typescript");
      assert.equal(byName["iii-worker"], "iii-sdk");
    });
  } finally {
    await caller.close();
    await ours.stop();
    await peer.stop();
    await iii.stop("SIGKILL");
    await engine.stop();
  }
});

Deno.test("SDK replicas are balanced, and when one is killed the other takes every call", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const env = { ENGINE_URL: engine.url, WORKER_NS: "rep" };
  const a = await spawnWorker("tests/fixtures/core/sdk_worker.ts", {
    ...env,
    WORKER_NAME: "rep-a",
  });
  const b = await spawnWorker("tests/fixtures/core/sdk_worker.ts", {
    ...env,
    WORKER_NAME: "rep-b",
  });
  const caller = await RawWorker.connect(engine.url);
  try {
    await waitForFunctions(caller, ["rep::whoami"]);
    const deadline = Date.now() + 15_000;
    while (
      (await caller.call("engine::functions::list", { prefix: "rep::whoami" })).result
        .functions[0].replicas < 2
    ) {
      assert.ok(Date.now() < deadline, "the second replica of rep::whoami did not register");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pids = new Set<number>();
    for (let i = 0; i < 10; i++) pids.add((await caller.call("rep::whoami", {})).result.pid);
    assert.deepEqual([...pids].sort(), [a.pid, b.pid].sort(), "both replicas served");
    await a.stop("SIGKILL");
    const after = new Set<number>();
    for (let i = 0; i < 10; i++) {
      const r = await caller.call("rep::whoami", {});
      if (r.result) after.add(r.result.pid);
      else assert.equal(r.error.code, "invocation_stopped");
    }
    assert.deepEqual([...after], [b.pid]);
  } finally {
    await caller.close();
    await b.stop();
    await engine.stop();
  }
});

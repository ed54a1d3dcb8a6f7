import assert from "node:assert/strict";
import { type EngineError, registerWorker } from "./mod.ts";
import { MAX_FRAME_BYTES } from "./frame_size.ts";
import { spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";

Deno.test("a call or result of 64 MiB or more fails alone with frame_too_large, and the connection stays", async () => {
  // Such a message ended the sender's connection (the engine's server takes up to 64 MiB - 1):
  // every call in flight on it failed with invocation_stopped and the worker reconnected.
  const { file } = await tempConfig("port: 0\nworkers: []\nconsole:\n  enabled: false\n");
  const engine = await spawnEngine({ config: file });
  const callee = registerWorker(engine.url, { worker_name: "callee" });
  const caller = registerWorker(engine.url, { worker_name: "caller" });
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    callee.registerFunction("big::make", () => "x".repeat(MAX_FRAME_BYTES));
    callee.registerFunction("big::held", async () => {
      await held;
      return "held done";
    });
    callee.registerFunction("big::len", (s: string) => s.length);
    await Promise.all([callee.ready(), caller.ready()]);
    const call = <T>(function_id: string, payload: unknown) =>
      caller.trigger<unknown, T>({ function_id, payload, timeoutMs: 20_000 });
    // The functions are registered once a call through them answers.
    while (await call("big::len", "ok").catch(() => undefined) !== 2) { /* registering */ }
    // Each has had a message from the engine since its workerregistered (ready() is only "open").
    const ids = [callee.workerId, caller.workerId];
    assert.ok(ids.every((id) => typeof id === "string"), `worker ids: ${ids}`);

    const inFlight = call("big::held", {});
    await assert.rejects(call("big::make", {}), (err: EngineError) => {
      assert.equal(err.code, "frame_too_large");
      assert.match(
        err.message,
        /^Result of "big::make" is \d+ bytes, over the 67108863 bytes the engine takes in one message: it was not sent$/,
      );
      return true;
    });
    await assert.rejects(call("big::len", "y".repeat(MAX_FRAME_BYTES)), (err: EngineError) => {
      assert.equal(err.code, "frame_too_large");
      assert.equal(err.function_id, "big::len");
      assert.match(
        err.message,
        /^Call to "big::len" is \d+ bytes, over the 67108863 bytes the engine takes in one message: it was not sent$/,
      );
      return true;
    });
    release();
    assert.equal(await inFlight, "held done");
    assert.equal(await call("big::len", "é🌍"), 3);
    assert.deepEqual([callee.workerId, caller.workerId], ids, "neither worker reconnected");
  } finally {
    await Promise.all([callee.shutdown(), caller.shutdown()]);
    await engine.stop();
  }
});

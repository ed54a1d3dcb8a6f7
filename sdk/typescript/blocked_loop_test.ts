import assert from "node:assert/strict";
import { registerWorker } from "./mod.ts";
import { spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";

const IDLE_MS = 300;

/** Holds up the whole event loop (as synchronous CPU work or a sync read of a huge file does). */
function blockLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

Deno.test("a handler that blocks the event loop past the idle deadline keeps the worker's connection", async () => {
  // The engine speaks only when asked: it was quiet because the blocked loop sent no ping, and
  // once the loop moved again the worker dropped its own live connection, failing every call in
  // flight with invocation_stopped, and reconnected.
  const { file } = await tempConfig("port: 0\nworkers: []\nconsole:\n  enabled: false\n");
  const engine = await spawnEngine({ config: file });
  const options = { heartbeatIntervalMs: 50, idleTimeoutMs: IDLE_MS };
  const callee = registerWorker(engine.url, { worker_name: "callee", ...options });
  const caller = registerWorker(engine.url, { worker_name: "caller", ...options });
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
  let release = () => {};
  try {
    const held = new Promise<void>((resolve) => (release = resolve));
    callee.registerFunction("block::sync", () => {
      blockLoop(2 * IDLE_MS);
      return "unblocked";
    });
    callee.registerFunction("block::held", async () => {
      await held;
      return "held done";
    });
    callee.registerFunction("block::echo", (n: number) => n);
    await Promise.all([callee.ready(), caller.ready()]);
    const call = <T>(function_id: string, payload: unknown) =>
      caller.trigger<unknown, T>({ function_id, payload, timeoutMs: 20_000 });
    // The functions are registered once a call through them answers.
    while (await call("block::echo", 1).catch(() => undefined) !== 1) { /* registering */ }
    const ids = [callee.workerId, caller.workerId];

    const inFlight = call("block::held", {});
    inFlight.catch(() => {}); // a failure shows where it is awaited, not as an uncaught rejection
    assert.equal(await call("block::sync", {}), "unblocked");
    // A live connection still answers the pings: one more idle deadline passes without a drop.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    release();
    assert.equal(await inFlight, "held done");
    assert.equal(await call("block::echo", 2), 2);
    assert.deepEqual([callee.workerId, caller.workerId], ids, "neither worker reconnected");
    assert.deepEqual(warnings, []);
  } finally {
    console.warn = warn;
    release();
    await Promise.all([callee.shutdown(), caller.shutdown()]);
    await engine.stop();
  }
});

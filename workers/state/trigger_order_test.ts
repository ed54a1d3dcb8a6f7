/**
 * The order a `state` trigger's function hears of changes: the order of the
 * writes, even when a condition function answers for a later change first.
 */

import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { stateWorker } from "./mod.ts";

Deno.test("a state trigger with a slow condition still calls its handler in the order of the writes", async () => {
  const engine = await startEngine({
    port: 0,
    builtins: [{ worker: stateWorker, config: stateWorker.parseConfig({ adapter: "memory" }) }],
  });
  const worker = registerWorker(engine.url, { worker_name: "ordered" });
  try {
    // The condition for the first change answers once the handler heard of a later change (it
    // cannot while the order holds), or else once every write has answered.
    let releaseFirst!: () => void;
    const firstMayAnswer = new Promise<void>((resolve) => releaseFirst = resolve);
    const heard: unknown[] = [];
    let heardWarmUp!: () => void;
    const warmUpHeard = new Promise<void>((resolve) => heardWarmUp = resolve);
    let heardAll!: () => void;
    const allHeard = new Promise<void>((resolve) => heardAll = resolve);
    worker.registerFunction("ordered::condition", async (event: { new_value: unknown }) => {
      if (event.new_value === 1) await firstMayAnswer;
      return true;
    });
    worker.registerFunction("ordered::handler", (event: { new_value: unknown }) => {
      if (event.new_value === 0) heardWarmUp();
      else heard.push(event.new_value);
      if (event.new_value === 2 || event.new_value === 3) releaseFirst();
      if (heard.length === 3) heardAll();
      return null;
    });
    const trigger = {
      type: "state",
      function_id: "ordered::handler",
      config: { scope: "ordered", condition_function_id: "ordered::condition" },
    };
    worker.registerTrigger(trigger);
    await worker.ready();
    // The registration went out before this call: a first change reaches the handler.
    await worker.trigger({
      function_id: "state::set",
      payload: { scope: "ordered", key: "k", value: 0 },
    });
    await warmUpHeard;

    for (const value of [1, 2, 3]) {
      await worker.trigger({
        function_id: "state::set",
        payload: { scope: "ordered", key: "k", value },
      });
    }
    // A round trip behind the writes: any condition call they caused has reached the worker.
    await worker.trigger({ function_id: "state::get", payload: { scope: "ordered", key: "k" } });
    releaseFirst();
    await allHeard;
    assert.deepEqual(heard, [1, 2, 3]);
  } finally {
    await worker.shutdown();
    await engine.stop();
  }
});

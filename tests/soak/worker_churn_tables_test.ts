/**
 * Worker churn leaves nothing behind: 150 workers of our TypeScript SDK and
 * 150 of the npm iii-sdk connect, register functions, an HTTP route, a
 * state trigger and (ours) a trigger type with a trigger of it, call
 * themselves and shut down. Afterwards the engine's tables (workers,
 * functions, triggers, trigger types, engine-http's routes, calls) are back
 * at their baseline, whatever the number of past workers.
 *
 * @module
 */
import assert from "node:assert/strict";
import { registerWorker as iiiRegister } from "iii-sdk";
import { startEngine } from "../../engine/engine.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { httpWorker } from "../../workers/http/mod.ts";
import { stateWorker } from "../../workers/state/mod.ts";

const CYCLES = 150;

Deno.test("300 workers (our SDK and iii-sdk) come and go: the engine's tables are back at baseline", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  try {
    await engine.startBuiltin(httpWorker, httpWorker.parseConfig({ port: 0, host: "127.0.0.1" }));
    await engine.startBuiltin(stateWorker, stateWorker.parseConfig({ adapter: "memory" }));
    const tables = () => ({
      workers: engine.engine.workers.size,
      functions: engine.engine.functions.size,
      triggers: engine.engine.triggers.all().length,
      types: engine.engine.triggers.types().length,
      invocations: engine.engine.invocations.size,
      routes: (engine.describeBuiltin("engine-http")?.routes as unknown[]).length,
    });
    const baseline = tables();
    for (let n = 0; n < CYCLES; n++) {
      const ours = registerWorker(engine.url, { worker_name: `ours-${n}` });
      ours.registerFunction(`ours${n}::echo`, (d: unknown) => d);
      ours.registerTrigger({
        type: "http",
        function_id: `ours${n}::echo`,
        config: { api_path: `/ours/${n}`, http_method: "GET" },
      });
      ours.registerTrigger({
        type: "state",
        function_id: `ours${n}::echo`,
        config: { scope: `ours-${n}` },
      });
      ours.registerTriggerType({ id: `ours-type-${n}`, description: "churn" }, {
        registerTrigger: () => {},
        unregisterTrigger: () => {},
      });
      ours.registerTrigger({ type: `ours-type-${n}`, function_id: `ours${n}::echo`, config: {} });
      const iii = iiiRegister(engine.url, { workerName: `iii-${n}`, otel: { enabled: false } });
      iii.registerFunction(`iii${n}::echo`, (d: unknown) => Promise.resolve(d));
      iii.registerTrigger({
        type: "http",
        function_id: `iii${n}::echo`,
        config: { api_path: `/iii/${n}`, http_method: "GET" },
      });
      assert.deepEqual(await ours.trigger({ function_id: `ours${n}::echo`, payload: { n } }), {
        n,
      });
      assert.deepEqual(await iii.trigger({ function_id: `iii${n}::echo`, payload: { n } }), { n });
      await Promise.all([ours.shutdown(), iii.shutdown()]);
    }
    // A departure is handled when the engine reads the close: wait for the tables, with a bound.
    const until = Date.now() + 10_000;
    while (JSON.stringify(tables()) !== JSON.stringify(baseline) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(tables(), baseline);
  } finally {
    await engine.stop();
  }
});

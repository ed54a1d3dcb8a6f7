import assert from "node:assert/strict";
import { startEngine } from "./engine.ts";
import type { BuiltinWorker } from "./api.ts";
import { RawWorker } from "../tests/support/raw_worker.ts";

Deno.test("engine::workers::list marks a built-in worker as starting until its start() returns", async () => {
  const running = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const ready = Promise.withResolvers<void>();
  const worker: BuiltinWorker = {
    name: "slow-start",
    description: "registers its function, then takes its time",
    parseConfig: (raw) => raw,
    defaultConfig: {},
    async start(api) {
      api.registerFunction("slow::one", () => 1);
      await ready.promise;
      return { stop: () => Promise.resolve() };
    },
  };
  const probe = await RawWorker.connect(running.url);
  try {
    const started = running.startBuiltin(worker, {});
    const listed = async () => {
      const r = await probe.call("engine::workers::list", {});
      return r.result.workers.find((w: { name: string }) => w.name === "slow-start");
    };
    assert.equal((await listed()).starting, true, "listed, but still starting");
    ready.resolve();
    await started;
    const after = await listed();
    assert.equal(after.starting, undefined);
    assert.deepEqual(after.functions, ["slow::one"]);
  } finally {
    await probe.close();
    await running.stop();
  }
});

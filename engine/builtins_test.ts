import assert from "node:assert/strict";
import { withEngine } from "../tests/support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../tests/support/raw_worker.ts";

// Names an object inherits from Object.prototype: counting per worker in a plain object read
// `counts["constructor"]` as Object itself, and `counts["__proto__"] = n` set nothing.
const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

Deno.test("engine::invocations::stats and engine::workers::list count workers named like Object members", async () => {
  await withEngine(async (url) => {
    const caller = await RawWorker.connect(url);
    const workers: RawWorker[] = [];
    const release = Promise.withResolvers<void>();
    try {
      const calls: Promise<Frame>[] = [];
      for (const [i, name] of NAMES.entries()) {
        const worker = await RawWorker.connect(url);
        workers.push(worker);
        await worker.call("engine::workers::register", { name });
        const started = Promise.withResolvers<void>();
        worker.serve(`held::f${i}`, async () => {
          started.resolve();
          await release.promise;
          return { ok: true };
        });
        await waitForFunctions(caller, [`held::f${i}`]);
        calls.push(caller.call(`held::f${i}`, {}));
        await started.promise;
      }
      const stats = (await caller.call("engine::invocations::stats", {})).result;
      assert.equal(stats.in_flight, NAMES.length);
      for (const name of NAMES) {
        assert.ok(Object.hasOwn(stats.per_worker, name), `per_worker has "${name}"`);
        assert.equal(stats.per_worker[name], 1, name);
      }
      const list = (await caller.call("engine::workers::list", {})).result;
      for (const name of NAMES) {
        const view = list.workers.find((w: Frame) => w.name === name);
        assert.ok(view, `workers::list has "${name}"`);
        assert.equal(view.active_invocations, 1, name);
        assert.equal(view.status, "connected");
      }
      release.resolve();
      for (const answer of await Promise.all(calls)) assert.deepEqual(answer.result, { ok: true });
    } finally {
      release.resolve();
      for (const worker of workers) await worker.close();
      await caller.close();
    }
  });
});

import assert from "node:assert/strict";
import { withEngine } from "../tests/support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../tests/support/raw_worker.ts";
import { MAX_METADATA_CHARS, MAX_METADATA_KEYS } from "./worker_metadata.ts";

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

Deno.test("engine::workers::register refuses metadata past its bounds and keeps what the worker said before", async () => {
  await withEngine(async (url) => {
    const worker = await RawWorker.connect(url);
    try {
      const ok = await worker.call("engine::workers::register", { name: "meta", runtime: "deno" });
      assert.deepEqual(ok.result, { success: true });
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          "too many keys",
          Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`k${i}`, i])),
          /^Invalid input for engine::workers::register: its metadata would have 66 keys, over the 64 the engine keeps$/,
        ],
        [
          "too large",
          { note: "x".repeat(MAX_METADATA_CHARS) },
          /^Invalid input for engine::workers::register: its metadata would be [\d,]+ characters of JSON, over the 16,384 the engine keeps$/,
        ],
      ];
      for (const [what, metadata, message] of cases) {
        const refused = await worker.call("engine::workers::register", metadata);
        assert.equal(refused.error?.code, "INVALID_ARGUMENT", what);
        assert.match(refused.error?.message, message, what);
      }
      const list = (await worker.call("engine::workers::list", {})).result;
      const view = list.workers.find((w: Frame) => w.id === worker.workerId);
      assert.equal(view.name, "meta");
      assert.equal(view.runtime, "deno");
      const logs = (await worker.call("engine::logs::list", { level: "warn" })).result;
      const warned = JSON.stringify(logs);
      assert.match(
        warned,
        /Worker \\"meta\\" sent metadata the engine does not keep: its metadata would have 66 keys/,
      );
    } finally {
      await worker.close();
    }
  });
});

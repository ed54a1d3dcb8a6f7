/**
 * 1,000 worker connections and 10,000 registered functions on one engine:
 * everything registers, lists and routes; the figures are printed (the
 * benchmarks in bench/scale.ts hold the quiet-machine numbers).
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker } from "../support/raw_worker.ts";

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))![1]);
}

Deno.test("1,000 connections and 10,000 functions: registration, listing and calls work, memory per connection reported", async () => {
  const { file } = await tempConfig("port: 0\nworkers: []\nconsole:\n  enabled: false\n");
  const engine = await spawnEngine({ config: file });
  const workers: RawWorker[] = [];
  try {
    const caller = await RawWorker.connect(engine.url);
    workers.push(caller);
    const rssBefore = rssKb(engine.child.pid);
    for (let i = 0; i < 1000; i += 50) {
      workers.push(
        ...await Promise.all(Array.from({ length: 50 }, () => RawWorker.connect(engine.url))),
      );
    }
    const rssConnected = rssKb(engine.child.pid);

    const started = performance.now();
    const pool = workers.slice(1);
    for (let f = 0; f < 10_000; f++) {
      const w = pool[f % pool.length]!;
      w.send({ type: "registerfunction", id: `scale::f${f}` });
    }
    // Frames of one connection are handled in order: a pong after the last registration on each
    // connection means all of them are in.
    await Promise.all(pool.map((w) => {
      const pong = w.next((fr) => fr.type === "pong", { timeoutMs: 60_000 });
      w.send({ type: "ping" });
      return pong;
    }));
    const registeredMs = performance.now() - started;

    const t0 = performance.now();
    const list = await caller.call("engine::functions::list", { prefix: "scale::" });
    const listMs = performance.now() - t0;
    assert.equal(list.result.functions.length, 10_000);

    const target = pool[7]!;
    target.serve("scale::echo", (d) => d);
    // Registered on another connection: its pong says the engine has handled the registration.
    target.send({ type: "ping" });
    await target.next((f) => f.type === "pong");
    const probe = await caller.call("engine::functions::list", { prefix: "scale::echo" });
    assert.equal(probe.result.functions.length, 1);
    const t1 = performance.now();
    for (let i = 0; i < 200; i++) {
      assert.deepEqual((await caller.call("scale::echo", { i })).result, { i });
    }
    const callUs = ((performance.now() - t1) / 200) * 1000;
    const workersList = await caller.call("engine::workers::list", {});
    assert.ok(
      workersList.result.workers.length >= 1001,
      `expected at least 1001 workers listed, got ${workersList.result.workers.length}`,
    );

    const perConnKb = (rssConnected - rssBefore) / 1000;
    console.log(
      `1,000 connections: ${
        perConnKb.toFixed(1)
      } KB of engine RSS each; 10,000 functions registered in ` +
        `${registeredMs.toFixed(0)} ms; listed in ${listMs.toFixed(1)} ms; a routed call ${
          callUs.toFixed(0)
        } µs on average`,
    );
    assert.ok(perConnKb < 200, `memory per connection stays small: ${perConnKb} KB`);
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await engine.stop();
  }
});

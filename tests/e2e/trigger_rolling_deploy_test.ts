/**
 * A rolling deploy, with real processes: replica B of a worker (the same
 * functions, the same `state` and `http` triggers, under its own trigger ids)
 * starts, then replica A stops, gracefully or killed. A change in state calls
 * the function once while both run (they registered one trigger twice, as
 * twins), and once after A is gone (B's trigger took over); the route never
 * answers 404 in between, and with SIGTERM (A drains) every request succeeds.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";

const REPLICA = "tests/fixtures/triggers/replica_worker.ts";

/** The triggers of the replicas, once every one the engine lists is active. */
async function activeTriggers(caller: RawWorker, count: number): Promise<Frame[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const listed = (await caller.call("engine::registered-triggers::list", {})).result
      .registered_triggers.filter((t: Frame) => t.function_id.startsWith("replica::"));
    if (listed.length === count && listed.every((t: Frame) => t.status === "active")) {
      return listed;
    }
    assert.ok(Date.now() < deadline, `not ${count} active triggers: ${JSON.stringify(listed)}`);
  }
}

/** Sets `watched/<key>` and answers how many times `replica::on_change` was called for it. */
async function callsFor(caller: RawWorker, key: string): Promise<number> {
  await caller.call("state::set", { scope: "watched", key, value: 1 });
  const count = async () => (await caller.call("state::get", { scope: "counts", key })).result;
  const deadline = Date.now() + 10_000;
  while ((await count()) == null) assert.ok(Date.now() < deadline, `no call for "${key}"`);
  // Every delivery of the change left in the same turn as the first: once none is in flight,
  // all have counted.
  const inFlight = async () =>
    (await caller.call("engine::invocations::stats", {})).result.per_function?.[
      "replica::on_change"
    ] ?? 0;
  while ((await inFlight()) > 0) assert.ok(Date.now() < deadline, "calls still in flight");
  return await count();
}

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  Deno.test(`a rolling deploy (${signal}): each trigger fires once, before and after, and the route stays`, async () => {
    const httpPort = freePort();
    const { file } = await tempConfig(
      `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n  - name: engine-state\n    config: { adapter: memory }\n`,
    );
    const engine = await spawnEngine({ config: file });
    const replicas: WorkerProcess[] = [];
    let caller: RawWorker | undefined;
    let serving = true;
    let requests: Promise<void> = Promise.resolve();
    try {
      const env = { ENGINE_URL: engine.url };
      caller = await RawWorker.connect(engine.url);
      replicas.push(await spawnWorker(REPLICA, env));
      await activeTriggers(caller, 2);
      assert.equal(await callsFor(caller, "a-alone"), 1);

      // Requests all along the deploy: none may miss the route.
      const statuses: number[] = [];
      requests = (async () => {
        while (serving) {
          const r = await fetch(`http://127.0.0.1:${httpPort}/replica/hello`);
          await r.body?.cancel();
          statuses.push(r.status);
        }
      })();

      replicas.push(await spawnWorker(REPLICA, env));
      const both = await activeTriggers(caller, 4);
      assert.equal(new Set(both.map((t) => t.id)).size, 4);
      assert.equal(await callsFor(caller, "both"), 1, "one change, one call, with two replicas");

      const [a] = replicas.splice(0, 1);
      await a!.stop(signal);
      await activeTriggers(caller, 2);
      assert.equal(await callsFor(caller, "b-alone"), 1, "B's trigger took over");
      serving = false;
      await requests;
      assert.ok(statuses.length > 0);
      if (signal === "SIGTERM") {
        // A drains: it unregisters its functions first (the engine routes new requests to B), a
        // request that reached it meanwhile is refused as never run and goes to B, and the one
        // it is running is answered before it closes. Every request succeeds.
        assert.deepEqual(statuses.filter((s) => s !== 200), [], `of ${statuses.length} requests`);
      } else {
        // Killed, A cannot answer the request it had taken: that one may fail (502, the call
        // stopped with its worker; it may have run, so it is not sent again). None finds the
        // route missing.
        assert.deepEqual(statuses.filter((s) => s === 404), [], "no request missed the route");
      }
      const r = await fetch(`http://127.0.0.1:${httpPort}/replica/hello`);
      assert.equal((await r.json()).pid, replicas[0]!.pid);
    } finally {
      serving = false;
      await requests.catch(() => {}); // the engine may be gone already: the failure is reported
      await caller?.close();
      for (const r of replicas) await r.stop("SIGKILL");
      await engine.stop();
    }
  });
}

/**
 * What the README says of a worker on the npm iii-sdk@0.22.1 stopped while
 * it is one of two replicas and calls keep coming: it does not drain (its
 * `shutdown()` just closes its socket; SIGTERM, with no listener, ends the
 * process), so calls in flight on it fail with `invocation_stopped`, and new
 * calls go to the other replica once its socket is gone. With real
 * processes: two iii-sdk replicas, replica A running a call that never ends,
 * four callers calling all along.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { replicasOf, until } from "../support/until.ts";

const FIXTURE = "tests/fixtures/drain/iii_replica_worker.ts";
const CALLERS = 4;

/** A call of the loop: whether it started after A's socket was seen gone, and its answer. */
interface Call {
  afterGone: boolean;
  answer: Frame;
}

const STOPS: Record<string, (a: WorkerProcess) => void> = {
  "shutdown()": (a) => Deno.kill(a.pid, "SIGUSR1"),
  "SIGTERM": (a) => Deno.kill(a.pid, "SIGTERM"),
};

for (const [how, stop] of Object.entries(STOPS)) {
  Deno.test(`an npm iii-sdk replica stopped by ${how}, another live: its calls in flight fail with invocation_stopped, the next go to the other`, async () => {
    const { file } = await tempConfig("port: 0\nconsole:\n  enabled: false\nworkers: []\n");
    const engine = await spawnEngine({ config: file });
    const started: WorkerProcess[] = [];
    const callers: RawWorker[] = [];
    let running = true;
    let loops: Promise<unknown> = Promise.resolve();
    try {
      const env = { ENGINE_URL: engine.url };
      const a = await spawnWorker(FIXTURE, { ...env, HOLD: "1" });
      started.push(a);
      const b = await spawnWorker(FIXTURE, env);
      started.push(b);
      const caller = await RawWorker.connect(engine.url);
      callers.push(caller);
      await until("two replicas", async () => (await replicasOf(caller, "iiidrain::hello")) === 2);

      const heldId = crypto.randomUUID();
      caller.send({
        type: "invokefunction",
        invocation_id: heldId,
        function_id: "iiidrain::hold",
        data: {},
      });
      await until("A to run iiidrain::hold", () => a.output.join("").includes("holding"));

      const calls: Call[] = [];
      let gone = false;
      for (let i = 0; i < CALLERS; i++) callers.push(await RawWorker.connect(engine.url));
      const loop = async (w: RawWorker) => {
        while (running) {
          const afterGone = gone;
          calls.push({ afterGone, answer: await w.call("iiidrain::hello", {}) });
        }
      };
      loops = Promise.all(callers.slice(1).map(loop));
      await until("calls to both replicas", () => {
        const pids = new Set(calls.map((c) => c.answer.result?.pid));
        return calls.length >= 50 && pids.has(a.pid) && pids.has(b.pid);
      });

      stop(a);
      const held = await caller.next((f) => f.invocation_id === heldId, { timeoutMs: 20_000 });
      assert.equal(held.error?.code, "invocation_stopped", JSON.stringify(held));
      await until(
        "A's socket gone",
        async () => (await replicasOf(caller, "iiidrain::hello")) === 1,
      );
      gone = true;
      const atGone = calls.length;
      await until("calls after A left", () => calls.length >= atGone + 50);
      running = false;
      await loops;
      if (how === "shutdown()") assert.match(a.output.join(""), /shut down/);

      // Calls in flight on A when it went (at most one per caller) failed, with invocation_stopped.
      const failed = calls.filter((c) => c.answer.error);
      assert.ok(failed.length <= CALLERS, `${failed.length} failed: more than were in flight`);
      for (const { answer } of failed) {
        assert.equal(answer.error.code, "invocation_stopped", JSON.stringify(answer));
        assert.match(
          answer.error.message,
          /^Invocation of iiidrain::hello stopped: worker "iii-drain"/,
        );
      }
      // Every call made once A's socket was gone went to B.
      const after = calls.filter((c) => c.afterGone);
      assert.ok(after.length >= 50);
      assert.deepEqual(after.filter((c) => c.answer.result?.pid !== b.pid), []);
    } finally {
      running = false;
      await loops.catch(() => {}); // the engine may be gone already: the failure is reported
      for (const w of callers) await w.close();
      for (const w of started) await w.stop("SIGKILL");
      await engine.stop();
    }
  });
}

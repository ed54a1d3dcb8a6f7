/**
 * A rolling deploy with real processes: replica A of a worker (our
 * TypeScript or Python SDK) is stopped gracefully (SIGTERM) while replica B
 * of the same functions is live, and A still runs a call, so it drains for a
 * while. Callers of every kind call all along: engine-http requests, our
 * TypeScript SDK, and a raw WebSocket caller (the frames of the npm
 * iii-sdk). None may fail: A tells the engine to route nothing new to it
 * before it drains, and a call that reached A after its shutdown began (A
 * answers it with code `shutdown`: it never ran) goes to B.
 */
import assert from "node:assert/strict";
import { ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";
import { EngineError, registerWorker, type Worker } from "../../sdk/typescript/mod.ts";
import { replicasOf, until } from "../support/until.ts";

const FIXTURE = "tests/fixtures/drain/drain_worker";

const REPLICAS: Record<string, (env: Record<string, string>) => Promise<WorkerProcess>> = {
  typescript: (env) => spawnWorker(`${FIXTURE}.ts`, env),
  python: (env) =>
    spawnWorker(`${FIXTURE}.py`, {
      ...env,
      PYTHONPATH: `${ROOT}sdk/python`,
      PYTHONDONTWRITEBYTECODE: "1",
    }, { cmd: "python3", args: [`${ROOT}${FIXTURE}.py`] }),
};

for (const [language, spawn] of Object.entries(REPLICAS)) {
  Deno.test(`a graceful stop of one ${language} replica, another live: no caller sees a failure`, async () => {
    const httpPort = freePort();
    const { file } = await tempConfig(
      `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n`,
    );
    const engine = await spawnEngine({ config: file });
    const started: WorkerProcess[] = [];
    let caller: RawWorker | undefined;
    let raw: RawWorker | undefined;
    let sdk: Worker | undefined;
    let running = true;
    let loops: Promise<unknown> = Promise.resolve();
    try {
      const env = { ENGINE_URL: engine.url };
      const a = await spawn({ ...env, HOLD: "1" });
      started.push(a);
      started.push(await spawn(env));
      caller = await RawWorker.connect(engine.url);
      raw = await RawWorker.connect(engine.url);
      sdk = registerWorker(engine.url, { worker_name: "drain-caller" });
      await sdk.ready();
      await until(
        "two replicas of drain::hello",
        async () => (await replicasOf(caller!, "drain::hello")) === 2,
      );

      // A runs a call through the whole deploy: its drain lasts until it is released.
      const held = caller.call("drain::hold", {});
      held.catch(() => {}); // awaited below; a failure before that is the one reported
      await until("A to run drain::hold", () => a.output.join("").includes("holding"));

      const failures: string[] = [];
      let served = 0;
      const httpLoop = async () => {
        while (running) {
          const r = await fetch(`http://127.0.0.1:${httpPort}/drain/hello`);
          const body = await r.text();
          if (r.status === 200) served++;
          else failures.push(`engine-http ${r.status}: ${body}`);
        }
      };
      const sdkLoop = async () => {
        while (running) {
          try {
            await sdk!.trigger({ function_id: "drain::hello", payload: {} });
            served++;
          } catch (e) {
            failures.push(`SDK ${e instanceof EngineError ? e.code : ""}: ${(e as Error).message}`);
          }
        }
      };
      const rawLoop = async () => {
        while (running) {
          const r = await raw!.call("drain::hello", {});
          if (r.error) failures.push(`raw caller: ${JSON.stringify(r.error)}`);
          else served++;
        }
      };
      // Several at once, so B is often busier than A and the engine would pick A.
      loops = Promise.all([httpLoop(), httpLoop(), httpLoop(), sdkLoop(), sdkLoop(), rawLoop()]);
      await until("calls before the stop", () => served >= 50);

      a.child.kill("SIGTERM");
      await until("A to start draining", () => a.output.join("").includes("draining"));
      const atDrain = served;
      await until("calls while A drains", () => served >= atDrain + 300);
      const whileDraining = await replicasOf(caller, "drain::hello");

      Deno.kill(a.pid, "SIGUSR1"); // A's held call ends: its drain is over
      const answer = await held;
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      assert.equal(answer.result.pid, a.pid, "the held call finished on A");
      assert.equal((await a.child.status).code, 0, a.output.join(""));
      const atExit = served;
      await until("calls after A left", () => served >= atExit + 50);
      running = false;
      await loops;
      assert.deepEqual(failures, [], `${failures.length} of ${served + failures.length} failed`);
      assert.equal(whileDraining, 1, "A's drain::hello was unregistered while it drained");
    } finally {
      running = false;
      await loops.catch(() => {}); // the engine may be gone already: the failure is reported
      await sdk?.shutdown();
      await raw?.close();
      await caller?.close();
      for (const w of started) await w.stop("SIGKILL");
      await engine.stop();
    }
  });
}

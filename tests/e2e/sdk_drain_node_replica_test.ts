/**
 * A rolling deploy of a Node worker on the quickstart template's bundled SDK:
 * two Node replicas of `drain::hello` (bound to `GET /drain/hello` through
 * engine-http) on a real engine process; replica A is stopped with SIGTERM,
 * its own handler calling `shutdown()` and then `process.exit(0)` as the
 * SDK's README shows, while HTTP requests and SDK calls keep coming and A
 * still runs a call (or, in a second test, runs only the calls of the load,
 * so its drain is short and the engine's calls sent before it read the
 * `unregisterfunction` are the ones at stake). Every request succeeds, A's
 * held call finishes on A, and A exits with code 0. Skipped with a message when `node` is not on PATH.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { freePort } from "../support/ports.ts";
import { RawWorker } from "../support/raw_worker.ts";
import { nodeVersion } from "../../sdk/typescript/_testing/node.ts";
import { EngineError, registerWorker, type Worker } from "../../sdk/typescript/mod.ts";
import {
  type NodeWorker,
  prepareWorkerDir,
  spawnNodeWorker,
  stopNodeWorker,
} from "./sdk_drain_node_worker.ts";
import { replicasOf, until } from "../support/until.ts";

const NODE = nodeVersion();
if (!NODE) console.warn("SKIPPING the Node rolling-deploy drain test: `node` is not on PATH");

Deno.test({
  name: `[Node ${
    NODE ?? "not on PATH"
  }] a SIGTERM to one of two Node replicas under load: no request fails, its held call ends on it, it exits 0`,
  ignore: !NODE,
  fn: () => rollingStop(true),
});

Deno.test({
  name: `[Node ${
    NODE ?? "not on PATH"
  }] a SIGTERM to one of two idle-between-calls Node replicas under load: no request fails, it exits 0`,
  ignore: !NODE,
  fn: () => rollingStop(false),
});

/** Stops replica A under load; with `hold`, A runs a call through its whole drain. */
async function rollingStop(hold: boolean): Promise<void> {
  const httpPort = freePort();
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n`,
  );
  const engine = await spawnEngine({ config: file });
  const dir = await prepareWorkerDir();
  const started: NodeWorker[] = [];
  let caller: RawWorker | undefined;
  let sdk: Worker | undefined;
  let running = true;
  let loops: Promise<unknown> = Promise.resolve();
  try {
    const a = spawnNodeWorker(dir, {
      ENGINE_URL: engine.url,
      EXIT: "explicit",
      ...(hold ? { HOLD: "1" } : {}),
    });
    started.push(a);
    const b = spawnNodeWorker(dir, { ENGINE_URL: engine.url });
    started.push(b);
    await Promise.all([a.waitForLine(/^ready$/), b.waitForLine(/^ready$/)]);
    caller = await RawWorker.connect(engine.url);
    sdk = registerWorker(engine.url, { worker_name: "drain-caller" });
    await sdk.ready();
    await until(
      "two replicas of drain::hello",
      async () => (await replicasOf(caller!, "drain::hello")) === 2,
    );

    // A runs a call through the whole deploy: its drain lasts until it is released.
    const held = hold ? caller.call("drain::hold", {}) : undefined;
    held?.catch(() => {}); // awaited below; a failure before that is the one reported
    if (hold) await a.waitForLine(/^holding$/);

    const failures: string[] = [];
    /** The pids that answered, in order. */
    const answeredBy: number[] = [];
    const httpLoop = async () => {
      while (running) {
        const r = await fetch(`http://127.0.0.1:${httpPort}/drain/hello`);
        const body = await r.text();
        if (r.status === 200) answeredBy.push(JSON.parse(body).pid);
        else failures.push(`engine-http ${r.status}: ${body}`);
      }
    };
    const sdkLoop = async () => {
      while (running) {
        try {
          const r = await sdk!.trigger<unknown, { body: { pid: number } }>({
            function_id: "drain::hello",
            payload: {},
          });
          answeredBy.push(r.body.pid);
        } catch (e) {
          failures.push(`SDK ${e instanceof EngineError ? e.code : ""}: ${(e as Error).message}`);
        }
      }
    };
    // Several at once, so B is often busier than A and the engine would pick A.
    loops = Promise.all([httpLoop(), httpLoop(), httpLoop(), sdkLoop(), sdkLoop()]);
    await until(
      "calls answered by both replicas before the stop",
      () => answeredBy.includes(a.pid) && answeredBy.includes(b.pid) && answeredBy.length >= 50,
    );

    a.signal("SIGTERM");
    await a.waitForLine(/^draining$/);
    if (held) {
      const atDrain = answeredBy.length;
      await until("calls while A drains", () => answeredBy.length >= atDrain + 300);
      assert.equal(
        await replicasOf(caller, "drain::hello"),
        1,
        "A's drain::hello was unregistered while it drained",
      );
      a.signal("SIGUSR2"); // A's held call ends: its drain is over
      const answer = await held;
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      assert.equal(answer.result.pid, a.pid, "the held call finished on A");
    }
    const status = await a.exited;
    assert.equal(status.code, 0, a.lines.join("\n"));
    const atExit = answeredBy.length;
    await until("calls after A left", () => answeredBy.length >= atExit + 50);
    running = false;
    await loops;
    assert.deepEqual(
      failures,
      [],
      `${failures.length} of ${answeredBy.length + failures.length} failed`,
    );
    assert.ok(
      !answeredBy.slice(atExit).includes(a.pid),
      "no call was answered by A after it exited",
    );
  } finally {
    running = false;
    await loops.catch(() => {}); // the engine may be gone already: the failure is reported
    await sdk?.shutdown();
    await caller?.close();
    for (const w of started) await stopNodeWorker(w);
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

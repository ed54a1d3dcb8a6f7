/**
 * A rolling deploy of Python replicas that are idle when they stop, with real
 * processes: replica B of `idle::hello` (our Python SDK, an HTTP route) stays
 * up while replica A is started and stopped with SIGTERM a few times over,
 * under `run_forever()`, `shutdown()` or `shutdown_async()`. engine-http
 * requests and TypeScript SDK callers call all along, and every call
 * succeeds. A runs nothing long, so its drain has nothing to wait for: a call
 * the engine sent it just before reading its `unregisterfunction` arrives
 * after the drain would have ended. A waits for the engine's JSON `pong` to
 * its `ping` (sent after the `unregisterfunction` frames), so that call
 * arrives before A closes; A refuses it with code `shutdown` and the engine
 * sends it to B. Closing sooner left it unanswered (`invocation_stopped`, a
 * 502 through engine-http).
 */
import assert from "node:assert/strict";
import { ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";
import { EngineError, registerWorker, type Worker } from "../../sdk/typescript/mod.ts";

const FIXTURE = "tests/fixtures/drain/idle_replica.py";
/** How many times A is started and stopped in each case. */
const ROUNDS = 4;

function spawnReplica(env: Record<string, string>): Promise<WorkerProcess> {
  return spawnWorker(FIXTURE, {
    ...env,
    PYTHONPATH: `${ROOT}sdk/python`,
    PYTHONDONTWRITEBYTECODE: "1",
  }, {
    cmd: "python3",
    args: [`${ROOT}${FIXTURE}`],
  });
}

/** Calls answered, by the pid of the replica that answered them; waits for a count. */
class Served {
  readonly #counts = new Map<number, number>();
  readonly #waiting: { pid: number; count: number; resolve: () => void }[] = [];

  count(pid: number): number {
    return this.#counts.get(pid) ?? 0;
  }

  add(pid: number): void {
    const n = this.count(pid) + 1;
    this.#counts.set(pid, n);
    for (const w of this.#waiting.filter((w) => w.pid === pid && n >= w.count)) {
      this.#waiting.splice(this.#waiting.indexOf(w), 1);
      w.resolve();
    }
  }

  /** Resolves once `pid` has answered `count` calls; fails naming `what` after 20 s. */
  async until(pid: number, count: number, what: string): Promise<void> {
    if (this.count(pid) >= count) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => this.#waiting.push({ pid, count, resolve })),
        new Promise((_, reject) => {
          timer = setTimeout(
            () =>
              reject(new Error(`timed out waiting for ${what} (${this.count(pid)} of ${count})`)),
            20_000,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

for (const stop of ["run_forever", "shutdown", "shutdown_async"]) {
  Deno.test(`an idle Python replica stopped by SIGTERM (${stop}) while another is live: every call succeeds`, async () => {
    const httpPort = freePort();
    const { file } = await tempConfig(
      `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n`,
    );
    const engine = await spawnEngine({ config: file });
    const started: WorkerProcess[] = [];
    let sdk: Worker | undefined;
    let running = true;
    let loops: Promise<unknown> = Promise.resolve();
    try {
      const env = { ENGINE_URL: engine.url, STOP: stop };
      const b = await spawnReplica(env);
      started.push(b);
      sdk = registerWorker(engine.url, { worker_name: "idle-caller" });
      await sdk.ready();

      const served = new Served();
      const failures: string[] = [];
      const httpLoop = async () => {
        while (running) {
          const r = await fetch(`http://127.0.0.1:${httpPort}/idle/hello`);
          const body = await r.text();
          if (r.status === 200) served.add(JSON.parse(body).pid);
          // A 404 before B answered anything: its route is not bound yet.
          else if (r.status !== 404 || served.count(b.pid) > 0) {
            failures.push(`engine-http ${r.status}: ${body}`);
          }
        }
      };
      const sdkLoop = async () => {
        while (running) {
          try {
            const answer = await sdk!.trigger<unknown, { body: { pid: number } }>({
              function_id: "idle::hello",
              payload: {},
            });
            served.add(answer.body.pid);
          } catch (e) {
            failures.push(`SDK ${e instanceof EngineError ? e.code : ""}: ${(e as Error).message}`);
          }
        }
      };
      loops = Promise.all([httpLoop(), httpLoop(), httpLoop(), sdkLoop(), sdkLoop()]);
      await served.until(b.pid, 20, "calls answered by B");

      for (let round = 1; round <= ROUNDS; round++) {
        const a = await spawnReplica(env);
        started.push(a);
        // The engine routes calls to A too: it is a live replica.
        await served.until(a.pid, 20, `calls answered by A (round ${round})`);
        const status = await a.stop("SIGTERM");
        started.splice(started.indexOf(a), 1);
        assert.equal(status.code, 0, `A (round ${round}) exited: ${a.output.join("")}`);
        assert.deepEqual(failures, [], `round ${round}: ${failures.length} calls failed`);
      }
      const atEnd = served.count(b.pid);
      await served.until(b.pid, atEnd + 20, "calls answered by B after the last stop");
      running = false;
      await loops;
      assert.deepEqual(failures, []);
    } finally {
      running = false;
      await loops.catch(() => {}); // the engine may be gone already: the failure is reported
      await sdk?.shutdown();
      for (const w of started) await w.stop("SIGKILL");
      await engine.stop();
    }
  });
}

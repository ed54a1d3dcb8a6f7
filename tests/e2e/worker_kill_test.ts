/**
 * A supervised worker killed with SIGKILL in the middle of calls: callers
 * learn it at once, its functions and routes go, a replica takes the next
 * calls, and the supervisor starts it again.
 */
import assert from "node:assert/strict";
import { startHttpEngine } from "../support/http_engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { eventually, SDK_URL } from "../support/local_worker.ts";

const WORKER = `import { registerWorker } from ${JSON.stringify(SDK_URL)};
const worker = registerWorker(Deno.env.get("ENGINE_URL"), { reconnect: { initialDelayMs: 100, maxDelayMs: 500 } });
worker.registerFunction("fault::hang", () => new Promise(() => {}));
worker.registerFunction("fault::who", () => ({ status_code: 200, body: { who: "supervised", pid: Deno.pid } }));
worker.registerTrigger({ type: "http", function_id: "fault::who", config: { api_path: "/who", http_method: "GET" } });
await worker.ready();
console.log("ready");
`;

interface Supervised {
  name: string;
  pid: number | null;
  restarts: number;
  status: string;
  connected: boolean;
}

Deno.test("a supervised worker killed mid-call: invocation_stopped within a second, routes gone, replica serves, worker restarted", async () => {
  const { engine, base } = await startHttpEngine("victim", WORKER);
  const caller = await RawWorker.connect(engine.url);
  const replica = await RawWorker.connect(engine.url);
  try {
    await waitForFunctions(caller, ["fault::hang", "fault::who"], 30_000);
    replica.serve("fault::who", () => ({ who: "replica" }));
    const supervised = async () =>
      ((await caller.call("engine::supervisor::list", {})).result.workers as Supervised[]).find((
        w,
      ) => w.name === "victim")!;
    const first = await supervised();
    assert.equal(first.status, "running");
    await eventually(
      async () => (await fetch(`${base}/who`).then((r) => r.status)) === 200,
      "the /who route",
    );

    const pending = Array.from({ length: 5 }, () => caller.call("fault::hang", {}));
    await eventually(
      async () =>
        (await caller.call("engine::invocations::stats", {})).result.per_function["fault::hang"] ===
          5,
      "five calls in flight",
    );
    const killedAt = Date.now();
    Deno.kill(first.pid!, "SIGKILL");
    const results = await Promise.all(pending);
    const elapsed = Date.now() - killedAt;
    for (const r of results) assert.equal(r.error?.code, "invocation_stopped", JSON.stringify(r));
    assert.ok(elapsed < 1000, `callers learnt it within a second (${elapsed} ms)`);

    const gone = await caller.call("fault::hang", {});
    assert.equal(gone.error?.code, "function_not_found", "its functions disappeared");
    assert.equal(
      await fetch(`${base}/who`).then(async (r) => (await r.body?.cancel(), r.status)),
      404,
      "its route disappeared",
    );
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(
        (await caller.call("fault::who", {})).result,
        { who: "replica" },
        "the replica takes the calls",
      );
    }

    await eventually(
      async () => {
        const s = await supervised();
        return s.restarts >= 1 && s.pid !== first.pid && s.connected;
      },
      "the supervisor to restart the worker",
      20_000,
    );
    await waitForFunctions(caller, ["fault::hang"], 20_000);
  } finally {
    await caller.close();
    await replica.close();
    await engine.stop();
  }
});

/**
 * The worst realistic engine to stop, as a real process: engine-http with a
 * request held by a handler and a streamed response in progress,
 * engine-state and engine-queue on a Redis that stopped answering (SIGSTOP),
 * and three supervised workers: one of our TypeScript SDK and one of our
 * Python SDK, each with a handler mid-call (their drains wait 5 s), and one
 * that ignores SIGTERM. Used by `shutdown_budget_test.ts`.
 *
 * @module
 */
import { type EngineProcess, ROOT, spawnEngine } from "../support/engine_process.ts";
import { eventually, SDK_URL, writeLocalWorker } from "../support/local_worker.ts";
import { type RedisServer, startRedisServer } from "../support/redis_server.ts";
import { registerWorker, type Worker } from "../../sdk/typescript/mod.ts";

const TS_WORKER = `import { registerWorker, streamResponse } from ${JSON.stringify(SDK_URL)};
const worker = registerWorker(Deno.env.get("ENGINE_URL"));
const route = (id, path, handler) => {
  worker.registerFunction(id, handler);
  worker.registerTrigger({ type: "http", function_id: id, config: { api_path: path, http_method: "GET" } });
};
route("ts::slow", "/slow", async () => {
  console.log("ts::slow started");
  await new Promise((resolve) => setTimeout(resolve, 120_000));
  return { status_code: 200, body: "late" };
});
route("ts::stream", "/stream", async (req) => {
  const res = streamResponse(req.response, { headers: { "content-type": "text/plain" } });
  console.log("ts::stream started");
  for (let i = 0; i < 1200; i++) {
    await res.write("chunk " + i + "\\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await res.end();
});
route("ts::ready", "/ready", () => ({ status_code: 200, body: "ready" }));
for (const signal of ["SIGTERM", "SIGINT"]) {
  Deno.addSignalListener(signal, () => worker.shutdown().then(() => Deno.exit(0)));
}
await worker.ready();
console.log("ts worker ready");
`;

const PY_WORKER = `import os, time
from engine_sdk import register_worker

worker = register_worker(os.environ["ENGINE_URL"])

def slow(_payload):
    print("py::slow started", flush=True)
    time.sleep(120)
    return {"late": True}

worker.register_function("py::slow", slow)
worker.wait_connected()
print("py worker ready", flush=True)
worker.run_forever()
`;

/** A worker that ignores SIGTERM (`sleep` inherits the ignored signal). */
const STUBBORN = `trap '' TERM; echo "stubborn ready"; while :; do sleep 1; done`;

export interface BudgetStack {
  dir: string;
  engine: EngineProcess;
  redis: RedisServer;
  /** engine-http's address. */
  base: string;
  /** The calls in progress when the test stops the engine (their outcomes are not asserted). */
  inFlight: Promise<unknown>[];
  /** Stops what the stack started but the engine (SIGCONT to Redis first). */
  close(): Promise<void>;
}

/** Writes the project, starts Redis and the engine, and puts every call in progress. */
export async function startBudgetStack(extraConfig = ""): Promise<BudgetStack> {
  const dir = await Deno.makeTempDir({ prefix: "engine-shutdown-budget-" });
  const redis = await startRedisServer();
  let engine: EngineProcess | undefined;
  let caller: Worker | undefined;
  let frozen = false;
  const close = async () => {
    await caller?.shutdown({ drainTimeoutMs: 0 }).catch(() => {});
    if (frozen) Deno.kill(redisPid(redis.port), "SIGCONT");
    await engine?.stop("SIGKILL").catch(() => {});
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await writeLocalWorker(`${dir}/ts`, {
      name: "ts",
      start: "deno run --allow-net --allow-env --allow-read main.ts",
      files: { "main.ts": TS_WORKER },
    });
    await writeLocalWorker(`${dir}/py`, {
      name: "py",
      kind: "python",
      entry: "main.py",
      start: "python3 -u main.py",
      env: { PYTHONPATH: `${ROOT}sdk/python`, PYTHONDONTWRITEBYTECODE: "1" },
      files: { "main.py": PY_WORKER },
    });
    await writeLocalWorker(`${dir}/stubborn`, {
      name: "stubborn",
      kind: "shell",
      entry: "run.sh",
      start: STUBBORN,
    });
    const store = JSON.stringify({ adapter: "redis", url: redis.url });
    await Deno.writeTextFile(
      `${dir}/engine-config.yaml`,
      `port: 0\n${extraConfig}console:\n  enabled: false\nworkers:\n` +
        `  - name: engine-http\n    config:\n      port: 0\n      default_timeout: 60000\n` +
        `  - name: engine-state\n    config: ${store}\n` +
        `  - name: engine-queue\n    config: ${store}\n` +
        `  - name: ts\n    path: ./ts\n  - name: py\n    path: ./py\n` +
        `  - name: stubborn\n    path: ./stubborn\n`,
    );
    engine = await spawnEngine({ config: `${dir}/engine-config.yaml`, cwd: dir });
    const httpLine = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
    const base = `http://127.0.0.1:${/"port":(\d+)/.exec(httpLine)![1]}`;
    await Promise.all(
      [/ts worker ready/, /py worker ready/, /stubborn ready/].map((p) =>
        engine!.waitForLine(p, 60_000)
      ),
    );
    await eventually(
      async () => {
        const r = await fetch(`${base}/ready`).catch(() => undefined);
        await r?.body?.cancel();
        return r?.status === 200;
      },
      "the /ready route",
      30_000,
    );
    caller = registerWorker(engine.url, { worker_name: "caller" });
    await caller.ready();
    const inFlight: Promise<unknown>[] = [];
    // Held by a TypeScript handler, through engine-http.
    inFlight.push(fetch(`${base}/slow`).then((r) => r.text()).catch((e) => e));
    await engine.waitForLine(/ts::slow started/);
    // A streamed response, read as it comes.
    inFlight.push(fetch(`${base}/stream`).then((r) => r.text()).catch((e) => e));
    await engine.waitForLine(/ts::stream started/);
    // Held by a Python handler, called through the SDK.
    inFlight.push(caller.trigger({ function_id: "py::slow", payload: {} }).catch((e) => e));
    await engine.waitForLine(/py::slow started/);
    // Redis stops answering; a state write and an enqueue wait for it.
    Deno.kill(redisPid(redis.port), "SIGSTOP");
    frozen = true;
    inFlight.push(
      caller.trigger({
        function_id: "state::set",
        payload: { scope: "s", key: "k", value: 1 },
      }).catch((e) => e),
      caller.trigger({
        function_id: "engine::queue::enqueue",
        payload: { queue: "q", function_id: "py::slow", data: {} },
      })
        .catch((e) => e),
    );
    return { dir, engine, redis, base, inFlight, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The pid of the redis-server listening on `port` (from `/proc`). */
function redisPid(port: number): number {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      // redis-server sets its title to "redis-server 127.0.0.1:<port>".
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes("redis-server") && cmdline.includes(`:${port}`)) {
        return Number(entry.name);
      }
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`No redis-server process listens on port ${port}`);
}

/**
 * Test support for the `sdk_drain_node_*` tests: a worker on Node running the
 * quickstart template's bundled SDK (`engine-sdk.mjs`, as its users run it),
 * stopped by SIGTERM through its own handler calling `shutdown()`, as the
 * SDK's README shows. Its output is read line by line, so a test waits for a
 * printed line, never a sleep.
 *
 * The worker, set by its environment:
 * - registers `drain::hello`, bound to `GET /drain/hello`, answering its pid;
 * - `HOLD=1`: also `drain::hold`, which prints "holding" and answers (its
 *   pid) only after SIGUSR2, so a call stays in flight while it drains;
 * - `CALL=<id>`: calls `<id>` at once and prints how that call ended;
 * - `RECONNECT_MS`: the reconnect delay (100 ms by default);
 * - `EXIT=explicit`: the SIGTERM handler exits with `process.exit(0)` once
 *   `shutdown()` resolves (the README's example); otherwise it only prints
 *   "shut down", and the process must exit by itself. If it still runs 5 s
 *   later, it prints the handles holding it open
 *   (`process.getActiveResourcesInfo()`).
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "../support/engine_process.ts";
import { type LineProcess, spawnLineProcess } from "../support/line_process.ts";

/** The SDK as the quickstart template ships it (`deno run -A cli/templates/generate.ts`). */
export const BUNDLE = `${ROOT}cli/templates/quickstart/workers/caller-worker/engine-sdk.mjs`;

const SCRIPT = `
import { registerWorker } from "./engine-sdk.mjs";

const env = process.env;
const delay = Number(env.RECONNECT_MS ?? 100);
const worker = registerWorker(env.ENGINE_URL, {
  worker_name: "drain-node",
  reconnect: { initialDelayMs: delay, maxDelayMs: delay },
});
worker.registerFunction("drain::hello", () => ({ status_code: 200, body: { pid: process.pid } }));
worker.registerTrigger({
  type: "http",
  function_id: "drain::hello",
  config: { api_path: "/drain/hello", http_method: "GET" },
});
if (env.HOLD === "1") {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  process.on("SIGUSR2", () => release());
  worker.registerFunction("drain::hold", async () => {
    console.log("holding");
    await released;
    return { pid: process.pid };
  });
}
if (env.CALL) {
  worker.trigger({ function_id: env.CALL, payload: {}, timeoutMs: 600_000 }).then(
    () => console.log("call answered"),
    (err) => console.log("call ended: " + err.code),
  );
}
process.on("SIGTERM", async () => {
  console.log("draining");
  await worker.shutdown({ drainTimeoutMs: 60_000 });
  if (env.EXIT === "explicit") process.exit(0);
  console.log("shut down");
  setTimeout(() => {
    console.log("still running after shutdown(): " + JSON.stringify(process.getActiveResourcesInfo()));
  }, 5000).unref();
});
worker.ready().then(() => console.log("ready"), (err) => console.log("ready failed: " + err.code));
`;

/** A Node worker process and the lines it printed (stdout and stderr). */
export interface NodeWorker extends LineProcess {
  pid: number;
  /** Sends `signal` if it still runs. */
  signal(signal: Deno.Signal): void;
}

/** Writes the worker script and a copy of the template's SDK into a new temporary folder. */
export async function prepareWorkerDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "engine-sdk-drain-node-" });
  await Deno.copyFile(BUNDLE, join(dir, "engine-sdk.mjs"));
  await Deno.writeTextFile(join(dir, "worker.mjs"), SCRIPT);
  return dir;
}

/** Starts `node worker.mjs` in `dir` with `env`. */
export function spawnNodeWorker(dir: string, env: Record<string, string>): NodeWorker {
  const worker = spawnLineProcess(["worker.mjs"], {
    command: "node",
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
    name: "the Node worker",
    timeoutMs: 20_000,
  });
  return {
    ...worker,
    pid: worker.child.pid,
    signal(signal) {
      try {
        worker.child.kill(signal);
      } catch { /* already exited */ }
    },
  };
}

/** Kills `worker` (SIGKILL) unless it has exited, and waits for it. */
export async function stopNodeWorker(worker: NodeWorker | undefined): Promise<void> {
  if (!worker) return;
  worker.signal("SIGKILL");
  await worker.exited;
}

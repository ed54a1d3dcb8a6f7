/**
 * The servers a benchmark measures, each started as its own process: the
 * engine (`main.ts --config`) and Debian's `nats-server`.
 *
 * @module
 */
import { freePort } from "../tests/support/ports.ts";
import { type Proc, readyOrStopped, spawn, spawnCommand } from "./procs.ts";

/** A running engine; `await using` (or an `AsyncDisposableStack`) stops it and cleans up. */
export interface EngineProc extends AsyncDisposable {
  engine: Proc;
  /** The workers' WebSocket URL. */
  url: string;
  dir: string;
  /** Removes the temp folder after `engine.stop()`. */
  cleanup(): Promise<void>;
}

/**
 * Starts the engine with `workersYaml` (a YAML list body under `workers:`,
 * empty for the bare core; a function gets the engine's temp folder, e.g. for
 * a SQLite file). `denoFlags` go before `main.ts` (e.g. `--cpu-prof`).
 */
export async function startEngine(
  { workersYaml = "", denoFlags = [], env = {} }: {
    workersYaml?: string | ((dir: string) => string);
    denoFlags?: string[];
    env?: Record<string, string>;
  } = {},
): Promise<EngineProc> {
  const dir = await Deno.makeTempDir({ prefix: "engine-bench-" });
  const config = `${dir}/engine-config.yaml`;
  const workers = typeof workersYaml === "string" ? workersYaml : workersYaml(dir);
  await Deno.writeTextFile(
    config,
    `host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers:${
      workers ? `\n${workers}` : " []\n"
    }`,
  );
  const cleanup = () => Deno.remove(dir, { recursive: true });
  const engine = spawn(["run", "--allow-all", ...denoFlags, "main.ts", "--config", config], env);
  let url: string;
  try {
    url = (await readyOrStopped(engine, (e) => e.waitFor(/Engine listening on (ws:\/\/\S+)/)))[1]!;
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    engine,
    url,
    dir,
    cleanup,
    async [Symbol.asyncDispose]() {
      await engine.stop();
      await cleanup();
    },
  };
}

/** YAML for `engine-state` (SQLite in `dir`) and `engine-http` on `httpPort` (0: any). */
export function builtinWorkersYaml(dir: string, httpPort = 0): string {
  return `  - name: engine-http\n    config:\n      port: ${httpPort}\n      host: 127.0.0.1\n` +
    `  - name: engine-state\n    config:\n      adapter: sqlite\n      path: ${dir}/state.db\n`;
}

/** Where Debian installs `nats-server` (not always on a non-root PATH). */
export function natsServerPath(): string {
  for (const p of ["/usr/sbin/nats-server", "/usr/bin/nats-server"]) {
    try {
      Deno.statSync(p);
      return p;
    } catch { /* next */ }
  }
  return "nats-server";
}

/** Starts `nats-server` on a free loopback port; resolves once it accepts clients. */
export async function startNats(): Promise<{ server: Proc; url: string }> {
  const port = freePort();
  const server = spawnCommand(natsServerPath(), ["-a", "127.0.0.1", "-p", String(port)]);
  await readyOrStopped(server, (s) => s.waitFor(/Server is ready/));
  return { server, url: `nats://127.0.0.1:${port}` };
}

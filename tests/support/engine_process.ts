/**
 * The engine as a child process (`deno run main.ts --config …`), for tests
 * that need a real process to kill, restart or read the output of. Waits for
 * the "Engine listening on <url>" line, never a sleep.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type LineProcess, spawnLineProcess } from "./line_process.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAIN = `${ROOT}main.ts`;

/** The engine as a child process, listening. */
export interface EngineProcess extends LineProcess {
  url: string;
  port: number;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit status (code and signal). */
  kill(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

export interface SpawnOptions {
  /** The config file to start with. */
  config: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Run this file instead of main.ts (e.g. the bundled engine). */
  entry?: string;
  /** How long to wait for the "Engine listening" line (20 s by default). */
  timeoutMs?: number;
}

/**
 * Starts the engine with `options.config` and resolves once it listens;
 * kills it and rejects if it exits (the error shows its exit code and
 * everything it printed) or does not listen in time.
 * `waitForLine` waits 15 s by default.
 */
export async function spawnEngine(options: SpawnOptions): Promise<EngineProcess> {
  const engine = spawnLineProcess(
    ["run", "--allow-all", options.entry ?? MAIN, "--config", options.config],
    {
      cwd: options.cwd ?? ROOT,
      env: { NO_COLOR: "1", ...options.env },
      name: "the engine",
      timeoutMs: 15_000,
    },
  );
  const kill = (signal: Deno.Signal = "SIGTERM") => engine.kill(signal);
  const stop = async (signal: Deno.Signal = "SIGTERM") => (await kill(signal)).code;
  let listening: string;
  try {
    // If the engine exits first, the wait fails at once with its exit code and all its output.
    listening = await engine.waitForLine(
      /Engine listening on ws:\/\//,
      options.timeoutMs ?? 20_000,
    );
  } catch (e) {
    await stop("SIGKILL");
    throw e;
  }
  const url = /(ws:\/\/\S+)/.exec(listening)![1]!;
  return { ...engine, url, port: Number(new URL(url).port), stop, kill };
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; entry?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", options.entry ?? MAIN, ...args],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Bundles the engine (`deno bundle` of main.ts, as `deno task bundle`) into the file `out`. */
export async function bundleEngine(out: string): Promise<void> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "deno", "-o", out, MAIN],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
}

/** Writes `text` to a config file in a new temporary folder and returns its path. */
export async function tempConfig(text: string): Promise<{ dir: string; file: string }> {
  const dir = await Deno.makeTempDir({ prefix: "engine-test-" });
  const file = `${dir}/engine-config.yaml`;
  await Deno.writeTextFile(file, text);
  return { dir, file };
}

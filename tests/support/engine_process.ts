/**
 * The engine as a child process (`deno run main.ts --config …`), for tests
 * that need a real process to kill, restart or read the output of. Waits for
 * the "Engine listening on <url>" line, never a sleep.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readLines } from "./lines.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const MAIN = `${ROOT}main.ts`;

export interface EngineProcess {
  url: string;
  port: number;
  child: Deno.ChildProcess;
  /** Every line printed so far (stdout and stderr). */
  lines: string[];
  /** Resolves with the first line matching `pattern` (already printed or future). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

export interface SpawnOptions {
  /** The config file to start with. */
  config: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Run this file instead of main.ts (e.g. the bundled engine). */
  entry?: string;
  timeoutMs?: number;
}

export async function spawnEngine(options: SpawnOptions): Promise<EngineProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", options.entry ?? MAIN, "--config", options.config],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream)) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const waitForLine = (re: RegExp, timeoutMs = 15_000) => {
    const seen = lines.find((l) => re.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`No line matching ${re} within ${timeoutMs}ms; output:\n${lines.join("\n")}`),
          ),
        timeoutMs,
      );
      waiters.push({ re, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  };
  let status: Promise<Deno.CommandStatus> | undefined;
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    try {
      child.kill(signal);
    } catch { /* already exited */ }
    status ??= child.status;
    const s = await status;
    await pumps;
    return s.code;
  };
  let listening: string;
  try {
    listening = await Promise.race([
      waitForLine(/Engine listening on ws:\/\//, options.timeoutMs ?? 20_000),
      child.status.then((s) => {
        throw new Error(`Engine exited with code ${s.code} before listening:\n${lines.join("\n")}`);
      }),
    ]);
  } catch (e) {
    await stop("SIGKILL");
    throw e;
  }
  const url = /(ws:\/\/\S+)/.exec(listening)![1]!;
  return { url, port: Number(new URL(url).port), child, lines, waitForLine, stop };
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

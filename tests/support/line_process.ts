/**
 * Test support: a `deno` child process whose output (stdout and stderr) is
 * read line by line and kept, so a test can wait for a printed line (an
 * explicit signal, never a sleep).
 *
 * @module
 */
import { readLines } from "./lines.ts";
import { Waiters } from "./waiters.ts";

/** A running child process and the lines it has printed. */
export interface LineProcess {
  child: Deno.ChildProcess;
  /** Every line printed so far (stdout and stderr). */
  lines: string[];
  /**
   * Resolves with the first line matching `pattern` (already printed or
   * future); after `timeoutMs` rejects naming the process, `pattern` and the
   * last lines printed.
   */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (if it still runs) and resolves with its exit status once its output has ended. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** Where and how {@link spawnLineProcess} runs `deno`. */
export interface LineProcessOptions {
  cwd: string;
  env: Record<string, string>;
  /** The process as a time-out message names it, e.g. "the engine". */
  name: string;
  /** The default time-out of `waitForLine`. */
  timeoutMs: number;
}

/** Runs `deno <args>` with its output piped and read as lines. */
export function spawnLineProcess(args: string[], options: LineProcessOptions): LineProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters = new Waiters<string>({
    item: "line",
    seen: () => lines,
    show: 20,
    timeoutMs: options.timeoutMs,
  });
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream)) {
      lines.push(line);
      waiters.deliver(line, { all: true });
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const waitForLine = (pattern: RegExp, timeoutMs?: number) => {
    const seen = lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return waiters.wait((line) => pattern.test(line), {
      description: `a line of ${options.name} matching ${pattern}`,
      timeoutMs: timeoutMs ?? options.timeoutMs,
    });
  };
  const kill = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch { /* already exited */ }
    const status = await child.status;
    await pumps;
    return status;
  };
  return { child, lines, waitForLine, kill };
}

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
   * last lines printed. Once the process has exited and its output has ended,
   * rejects at once (time-out cleared) with its exit status and every line it
   * printed.
   */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit status once the process has exited and its output has ended. */
  exited: Promise<Deno.CommandStatus>;
  /** Sends `signal` (if it still runs) and resolves with its exit status once its output has ended. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** Where and how {@link spawnLineProcess} runs `deno` (or `command`). */
export interface LineProcessOptions {
  /** The program to run; `deno` (this one) by default. */
  command?: string;
  cwd: string;
  env: Record<string, string>;
  /** The process as a time-out message names it, e.g. "the engine". */
  name: string;
  /** The default time-out of `waitForLine`. */
  timeoutMs: number;
}

/** Runs `deno <args>` (or `options.command`) with its output piped and read as lines. */
export function spawnLineProcess(args: string[], options: LineProcessOptions): LineProcess {
  const child = new Deno.Command(options.command ?? Deno.execPath(), {
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
    for await (const line of readLines(stream, { unterminated: true })) {
      lines.push(line);
      waiters.deliver(line, { all: true });
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then(async (status) => (await pumps, status));
  /** Set once the process has ended: the error of a wait for `what`. */
  let ended: ((what: string) => Error) | undefined;
  exited.then((status) => {
    ended = (what) =>
      new Error(
        `Stopped waiting for ${what}: ${options.name} exited with ${describeStatus(status)}; ` +
          printed(lines),
      );
    waiters.rejectAll(ended);
  }, () => {/* a broken pipe: kill() reports it */});
  const waitForLine = (pattern: RegExp, timeoutMs?: number) => {
    const seen = lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    const description = `a line of ${options.name} matching ${pattern}`;
    if (ended) return Promise.reject(ended(description));
    return waiters.wait((line) => pattern.test(line), {
      description,
      timeoutMs: timeoutMs ?? options.timeoutMs,
    });
  };
  const kill = async (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch { /* already exited */ }
    return await exited;
  };
  return { child, lines, waitForLine, exited, kill };
}

function describeStatus(status: Deno.CommandStatus): string {
  return status.signal === null ? `code ${status.code}` : `code ${status.code} (${status.signal})`;
}

/** Everything a process printed, for an error message. */
function printed(lines: readonly string[]): string {
  if (lines.length === 0) return "it printed nothing";
  const count = lines.length === 1 ? "1 line" : `${lines.length} lines`;
  return `everything it printed (${count}):\n${lines.map((line) => `  ${line}`).join("\n")}`;
}

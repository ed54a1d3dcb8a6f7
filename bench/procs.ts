/** Child processes of a benchmark run: start, wait for a line, stop. */
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A child process; `await using` (or an `AsyncDisposableStack`) stops it on every path. */
export interface Proc extends AsyncDisposable {
  child: Deno.ChildProcess;
  lines: string[];
  /**
   * The first line (printed already or to come) matching `re`; rejects after
   * `timeoutMs` (30 s by default), or at once once the child has exited.
   */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Writes a line to the child's stdin (spawned with `stdin: true`). */
  writeLine(line: string): Promise<void>;
  stop(): Promise<void>;
}

export function spawn(args: string[], env: Record<string, string> = {}): Proc {
  return spawnCommand(Deno.execPath(), args, env);
}

/** Like {@link spawn}, for any program; `stdin: true` pipes the child's stdin. */
export function spawnCommand(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
  { stdin = false }: { stdin?: boolean } = {},
): Proc {
  const child = new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const input = stdin ? child.stdin.getWriter() : undefined;
  const lines: string[] = [];
  const waiters: {
    re: RegExp;
    resolve: (m: RegExpExecArray) => void;
    reject: (e: Error) => void;
  }[] = [];
  const pump = async (s: ReadableStream<Uint8Array>) => {
    let buf = "";
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (lines.length < 10_000) lines.push(line);
        for (const w of [...waiters]) {
          const m = w.re.exec(line);
          if (m) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  /** Set once the child has exited and its output has ended: the error of a wait for `re`. */
  let ended: ((re: RegExp) => Error) | undefined;
  Promise.all([child.status, pumps]).then(([status]) => {
    ended = (re) =>
      new Error(
        `No line matching ${re}: ${cmd} exited with code ${status.code}:\n${
          lines.slice(-20).join("\n")
        }`,
      );
    for (const w of waiters.splice(0)) w.reject(ended(w.re));
  }, () => {/* a broken pipe: stop() reports it */});
  const stop = async () => {
    await input?.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
    await pumps;
  };
  return {
    child,
    lines,
    waitFor(re, timeoutMs = 30_000) {
      for (const l of lines) {
        const m = re.exec(l);
        if (m) return Promise.resolve(m);
      }
      if (ended) return Promise.reject(ended(re));
      return new Promise((resolve, reject) => {
        const waiter = {
          re,
          resolve: (m: RegExpExecArray) => (clearTimeout(t), resolve(m)),
          reject: (e: Error) => (clearTimeout(t), reject(e)),
        };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(
            new Error(
              `No line matching ${re} within ${timeoutMs} ms:\n${lines.slice(-20).join("\n")}`,
            ),
          );
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    async writeLine(line) {
      if (!input) throw new Error("The child was spawned without stdin");
      await input.write(new TextEncoder().encode(`${line}\n`));
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * Resolves with what `ready` resolves with (e.g. `proc`'s wait for its
 * ready line); if it fails, stops `proc` first, so a failed start leaves
 * no process behind.
 */
export async function readyOrStopped<T>(proc: Proc, ready: (proc: Proc) => Promise<T>): Promise<T> {
  try {
    return await ready(proc);
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

/** Runs a process to completion and returns its stdout (throws on failure). */
export async function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(
      `${cmd} ${args.join(" ")} failed (${out.code}):\n${
        new TextDecoder().decode(out.stderr)
      }\n${text}`,
    );
  }
  return text;
}

/**
 * Process groups: every script the supervisor runs (an install, a worker)
 * gets a session and process group of its own, so stopping it reaches every
 * process it started, however deep (`kill -TERM -<pgid>`, then `-KILL`).
 *
 * Each group also carries a lifeline: a tiny watchdog shell reading a pipe
 * whose other end only the engine holds. When the engine dies, even by
 * SIGKILL, the pipe closes and the watchdog sends SIGTERM to the group, then
 * SIGKILL to whatever is left after the grace period, so no worker outlives
 * the engine that started it, not even one that ignores SIGTERM. The
 * watchdog runs in a session of its own (`setsid`), outside the group it
 * guards: stopping the group never stops it, and it sees when the group is
 * gone. Without `setsid` it stays in the group and only sends SIGTERM.
 *
 * @module
 */
import { cutNote } from "../observability/cut.ts";

/**
 * Run by `sh -c` with the user's command as `$1` and the grace period in
 * tenths of a second as `$2`: keep the lifeline (stdin) on fd 3 for the
 * watchdog, then replace this shell by the command, whose stdin is
 * /dev/null. `$$` is the group's id (the engine starts the shell as a session
 * leader). The watchdog's output goes nowhere, so it never holds the pipes
 * the engine reads the worker's output from.
 */
const LIFELINE = `exec 3<&0
if command -v setsid >/dev/null 2>&1; then
  setsid sh -c '
    cat >/dev/null 2>&1
    kill -TERM "-$1" 2>/dev/null || exit 0
    waited=0
    while kill -0 "-$1" 2>/dev/null; do
      if [ "$waited" -ge "$2" ]; then kill -KILL "-$1" 2>/dev/null; exit 0; fi
      sleep 0.1
      waited=$((waited + 1))
    done' engine-lifeline "$$" "$2" <&3 >/dev/null 2>&1 &
else
  ( cat <&3 >/dev/null 2>&1; kill -TERM 0 ) </dev/null >/dev/null 2>&1 &
fi
exec sh -c "$1" </dev/null 3<&-`;

export interface GroupSpawnOptions {
  /** The folder the command runs in. */
  cwd: string;
  /** Added to the engine's own environment. */
  env: Record<string, string>;
  /**
   * Variables of the engine's own environment the command does not get
   * (`env` may still set them): secrets it has no use for.
   */
  withhold?: readonly string[];
  /** Shown as the shell's `$0` (in `ps`). */
  label?: string;
  /** After the engine died: how long the group has between SIGTERM and SIGKILL (default 5 s). */
  killAfterMs?: number;
}

/**
 * Starts `command` with `sh -c` in a new session (its pid is its process
 * group id), stdout and stderr piped. Keep the returned child's stdin open
 * while it runs: it is the lifeline; close it once the child has exited.
 */
export function spawnGroup(command: string, options: GroupSpawnOptions): Deno.ChildProcess {
  return new Deno.Command("sh", {
    args: [
      "-c",
      LIFELINE,
      options.label ?? "engine-worker",
      command,
      String(Math.max(1, Math.ceil((options.killAfterMs ?? 5000) / 100))),
    ],
    cwd: options.cwd,
    ...spawnEnv(options),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
}

/**
 * Secrets of the engine's environment that no script it runs needs: the
 * console's token. (`ENGINE_TOKEN` a worker gets, as the engine's own
 * token; an install does not: see `install.ts`.)
 */
export const ENGINE_ONLY_SECRETS: readonly string[] = ["ENGINE_CONSOLE_TOKEN"];

/** The environment options of `Deno.Command`: the engine's own, less `withhold`, plus `env`. */
function spawnEnv(options: GroupSpawnOptions): { env: Record<string, string>; clearEnv?: true } {
  const withhold = options.withhold ?? [];
  if (withhold.length === 0) return { env: options.env };
  const env = Deno.env.toObject();
  for (const name of withhold) delete env[name];
  return { env: { ...env, ...options.env }, clearEnv: true };
}

/** Closes the lifeline of an exited child; never throws. */
export async function closeLifeline(child: Deno.ChildProcess): Promise<void> {
  try {
    await child.stdin.close();
  } catch {
    // already closed
  }
}

/** Sends `signal` to every process of group `pgid`; false when none is left. */
export function signalGroup(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Pids of the live (non-zombie) processes of group `pgid`, read from `/proc`. */
export function groupMembers(pgid: number): number[] | undefined {
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return undefined; // no /proc: not Linux
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = procStat(Number(entry.name));
    if (stat && stat.pgrp === pgid && stat.state !== "Z") members.push(Number(entry.name));
  }
  return members;
}

/** Whether some live process of group `pgid` remains. */
export function groupAlive(pgid: number): boolean {
  const members = groupMembers(pgid);
  // Without /proc, a harmless signal tells whether the group exists.
  return members === undefined ? signalGroup(pgid, "SIGCONT") : members.length > 0;
}

/** The process group of `pid`, from `/proc`; undefined when unknown. */
export function processGroupOf(pid: number): number | undefined {
  return procStat(pid)?.pgrp;
}

function procStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
}

/**
 * Stops group `pgid`: SIGTERM, then SIGKILL to whatever is left after
 * `graceMs`. Resolves once no live process of the group remains (or right
 * after the SIGKILL where that cannot be told). `beforeKill` is called
 * right before a SIGKILL (a shutdown logs what it cuts off).
 */
export async function killGroup(
  pgid: number,
  graceMs: number,
  beforeKill?: () => void,
): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) {
      beforeKill?.();
      signalGroup(pgid, "SIGKILL");
      await waitUntilGone(pgid, 2000);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function waitUntilGone(pgid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Said when {@link readOutput}'s `finish()` had to stop reading. */
export const OUTPUT_HELD =
  "a process it started outside its group still holds its output open: no longer reading it";

/** How long {@link readOutput}'s `finish()` reads on; times in milliseconds. */
export interface FinishOptions {
  /** Stop once nothing came for this long. Default 1000. */
  idleMs?: number;
  /** Stop after this long in any case. Default 5000. */
  maxMs?: number;
}

/**
 * Reads `child`'s stdout and stderr line by line ({@linkcode readLines}).
 * `finish()`, once the child has exited and its group is gone, reads on
 * until both end, or nothing came for `idleMs`, or `maxMs` passed; false
 * when it stopped reading before the end: a process in a session of its own
 * (`setsid`, a detached child), which no group stop reaches, holds the pipes
 * open, and waiting for their end would wait for it. What the exited
 * processes left in the pipes keeps coming meanwhile, however slowly it is
 * read, so it is not cut.
 */
export function readOutput(
  child: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> },
  onStdout: (line: string) => void,
  onStderr: (line: string) => void,
): { finish(options?: FinishOptions): Promise<boolean> } {
  const unread = new AbortController();
  let lastRead = Date.now();
  const noted = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          lastRead = Date.now();
          controller.enqueue(chunk);
        },
      }),
    );
  const output = Promise.all([
    readLines(noted(child.stdout), onStdout, undefined, unread.signal),
    readLines(noted(child.stderr), onStderr, undefined, unread.signal),
  ]);
  const ended = output.then(() => true, () => true);
  return {
    async finish({ idleMs = 1000, maxMs = 5000 } = {}) {
      const deadline = Date.now() + maxMs;
      lastRead = Date.now();
      while (true) {
        const left = Math.min(idleMs - (Date.now() - lastRead), deadline - Date.now());
        if (left <= 0) break;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const later = new Promise<false>((resolve) => (timer = setTimeout(resolve, left, false)));
        const done = await Promise.race([ended, later]);
        clearTimeout(timer);
        if (done) return (await output, true);
      }
      unread.abort();
      await output;
      return false;
    },
  };
}

/**
 * Terminal control sequences (colours, cursor moves: CSI; titles, links: OSC).
 * A log entry is text: Deno, for one, colours an uncaught error even on a pipe.
 */
// deno-lint-ignore no-control-regex
const TERMINAL_CODES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * The control characters left after those (binary output, a lone ESC): shown as U+FFFD, as bytes
 * that are no UTF-8 are. Written as they are, `ESC c` reset the operator's terminal and SO switched
 * it to another character set. Tabs stay.
 */
// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Calls `onLine` for each line of `stream` (without its end of line), the
 * last one even without a newline. A line longer than `maxLength` is one
 * call with its first `maxLength` characters and a note of how many more
 * were cut (`… [1,983,616 more characters cut]`); only that much of it is
 * ever held. Terminal control sequences are dropped from every line, other
 * control characters but tabs become U+FFFD. When `signal` aborts, the
 * stream is cancelled and what was read of the last line is given.
 */
export async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  maxLength = 16_384,
  signal?: AbortSignal,
): Promise<void> {
  let buffer = "";
  // Characters of the current line beyond maxLength, dropped as they come.
  let cut = 0;
  const emit = (line: string) => {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.includes("\x1b")) line = line.replace(TERMINAL_CODES, "");
    line = line.replace(CONTROLS, "\ufffd");
    if (line.length > maxLength) {
      cut += line.length - maxLength;
      line = line.slice(0, maxLength);
    }
    onLine(cut === 0 ? line : `${line} … [${cutNote(cut)}]`);
    cut = 0;
  };
  try {
    for await (
      const chunk of stream.pipeThrough(new TextDecoderStream(), signal ? { signal } : {})
    ) {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        emit(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
      if (buffer.length > maxLength) {
        cut += buffer.length - maxLength;
        buffer = buffer.slice(0, maxLength);
      }
    }
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
  if (buffer !== "" || cut > 0) emit(buffer);
}

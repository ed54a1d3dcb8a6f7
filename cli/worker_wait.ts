/**
 * After `engine worker add`: wait, with progress, until the running engine
 * has started the worker and the worker has registered its functions, then
 * list them, or say why not (a crash with its last output, a failed install,
 * an engine that did not pick up the change). After `worker remove`: wait
 * until the engine has stopped it.
 *
 * @module
 */

import { isAbsolute, join, relative } from "node:path";
import type { SupervisedView } from "../engine/supervisor/functions.ts";
import { MANIFEST_FILE } from "../engine/supervisor/manifest.ts";
import { SHELL_CODES } from "../engine/supervisor/process.ts";
import { callerDir } from "./paths.ts";
import { formatDuration, progress } from "./progress.ts";
import type { Io } from "./trigger.ts";
import { type EngineLink, poll } from "./worker_engine.ts";

export interface WaitOptions {
  timeoutMs: number;
  /** The config file the worker was added to, for messages. */
  configFile?: string;
  /** When the config was written (ms since the epoch): older failures are not this change's. */
  since?: number;
}

/** How long a connected worker may stay without functions before that counts as its answer. */
const NO_FUNCTIONS_MS = 3000;
/** Functions arrive in a burst: the count must hold this long. */
const SETTLE_MS = 500;

/** Waits for local worker `name`; returns the exit code for `worker add`. */
export async function waitForLocal(
  link: EngineLink,
  name: string,
  io: Io,
  options: WaitOptions,
): Promise<number> {
  const started = Date.now();
  const show = progress(io, `Waiting for "${name}" to start and register its functions`, {
    echoLines: false,
  });
  let count = -1;
  let countSince = started;
  let connectedSince: number | undefined;
  const outcome = await poll(async (): Promise<Outcome | undefined> => {
    const w = (await link.supervised()).find((s) => s.name === name);
    if (!w) {
      show.status(`Waiting for the engine to pick up "${name}" from its config`);
      return undefined;
    }
    const tail = w.tail.at(-1);
    if (tail !== undefined) show.line(tail);
    if (w.status === "crashed") return { kind: "crashed", worker: w };
    if (w.status === "installing") {
      show.status(
        w.install_log === null
          ? `Engine reading the manifest of "${name}"`
          : `Engine installing dependencies of "${name}"`,
      );
    } else if (w.status === "running" && !w.connected) {
      show.status(`"${name}" started (pid ${w.pid}); waiting for it to connect`);
    }
    if (!w.connected || w.status !== "running") {
      connectedSince = undefined;
      return undefined;
    }
    connectedSince ??= Date.now();
    show.status(`"${name}" connected; waiting for its functions`);
    if (w.function_count !== count) {
      count = w.function_count;
      countSince = Date.now();
      return undefined;
    }
    if (count > 0 && Date.now() - countSince >= SETTLE_MS) return { kind: "ready", worker: w };
    if (count === 0 && Date.now() - connectedSince >= NO_FUNCTIONS_MS) {
      return { kind: "ready", worker: w };
    }
    return undefined;
  }, { timeoutMs: options.timeoutMs });
  const took = formatDuration(Date.now() - started);
  if (!outcome) {
    show.done();
    const w = (await link.supervised()).find((s) => s.name === name);
    io.err(
      w
        ? `Error: "${name}" did not register any function within ${took} (status ${w.status}` +
          `${w.pid ? `, pid ${w.pid}` : ""}): see the engine's output${tailText(w)}`
        : `Error: The engine did not start "${name}" within ${took}: ` +
          `check its output for a config error`,
    );
    return 1;
  }
  const w = outcome.worker;
  if (outcome.kind === "crashed") {
    show.done();
    io.err(`Error: "${name}" crashed: ${crashReason(w)}${tailText(w)}\n${nextStep(w)}`);
    return 1;
  }
  show.done(
    w.function_count === 0
      ? `✓ "${name}" is running (pid ${w.pid}) and registered no functions (${took})`
      : `✓ "${name}" is running (pid ${w.pid}) with ${w.function_count} ` +
        `function${w.function_count === 1 ? "" : "s"} (${took}):`,
  );
  for (const id of w.functions) io.out(`  ${id}`);
  return 0;
}

type Outcome = { kind: "ready" | "crashed"; worker: SupervisedView };

/**
 * Why a crashed worker is not running; for the shell's codes of a command it could not run, the
 * manifest field to check (the worker's `path` is its folder).
 */
export function crashReason(w: Pick<SupervisedView, "error" | "last_exit" | "path">): string {
  if (w.error) return w.error;
  const exit = w.last_exit;
  if (!exit) return "it stopped";
  const after = `after ${formatDuration(exit.uptime_ms)}`;
  const how = exit.signal
    ? `killed by ${exit.signal} ${after}`
    : exit.code === 0
    ? `exit code 0 ${after}: it ended, and a worker must keep running (a Python worker ends ` +
      `with worker.run_forever())`
    : SHELL_CODES[exit.code]
    ? `exit code ${exit.code} ${after}: ${SHELL_CODES[exit.code]}: check scripts.start in ` +
      join(w.path, MANIFEST_FILE)
    : `exit code ${exit.code} ${after}`;
  return `${how}; the engine restarts it with backoff`;
}

/** What to do about a crashed worker once its cause is fixed. */
export function nextStep(w: Pick<SupervisedView, "name" | "path">): string {
  return `Once it is fixed, "engine worker add ${
    shownPath(w.path)
  } --force" restarts it at once; ` +
    `"engine worker remove ${w.name}" takes it out of the config`;
}

/** `path` as the user would type it: relative to the folder they are in, when inside it. */
function shownPath(path: string): string {
  const rel = relative(callerDir(), path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return path;
  return `./${rel}`;
}

function tailText(w: SupervisedView): string {
  if (w.tail.length === 0) return "";
  return `\nLast output of "${w.name}":\n${w.tail.slice(-15).map((l) => `  │ ${l}`).join("\n")}`;
}

/** Waits for built-in worker `name` to run in the engine and lists its functions. */
export async function waitForBuiltin(
  link: EngineLink,
  name: string,
  io: Io,
  options: WaitOptions,
): Promise<number> {
  const started = Date.now();
  const show = progress(io, `Waiting for the engine to start "${name}"`, { echoLines: false });
  // A failure recorded before this command wrote the config is not its answer.
  const since = options.since ?? started;
  const outcome = await poll(async () => {
    const w = (await link.connected()).find((c) =>
      c.name === name && c.kind === "builtin" && !c.starting
    );
    if (w) return { ok: true as const, worker: w };
    const { failedBuiltins } = await link.supervisorList();
    const failed = failedBuiltins.find((f) => f.name === name && f.at >= since);
    return failed ? { ok: false as const, failed } : undefined;
  }, { timeoutMs: options.timeoutMs });
  if (!outcome) {
    show.done();
    io.err(
      `Error: The engine did not start "${name}" within ${
        formatDuration(Date.now() - started)
      }: see its output`,
    );
    return 1;
  }
  if (!outcome.ok) {
    show.done();
    io.err(
      `Error: The engine could not start "${name}": ${outcome.failed.error}\n` +
        `Its entry stays in ${options.configFile ?? "the config file"}: change its config ` +
        `there (the port, say) and the engine tries again; or, once the cause is gone (the ` +
        `port is free, say), "engine worker add ${name}" asks it to try again.`,
    );
    return 1;
  }
  const w = outcome.worker;
  show.done(builtinRunningLine(name, w.function_count));
  for (const id of [...w.functions].sort()) io.out(`  ${id}`);
  return 0;
}

/** What `worker add` prints when a built-in worker runs; its function ids follow, one per line. */
export function builtinRunningLine(name: string, functions: number): string {
  if (functions === 0) return `✓ "${name}" is running in the engine (no functions of its own)`;
  const noun = functions === 1 ? "function" : "functions";
  return `✓ "${name}" is running in the engine with ${functions} ${noun}:`;
}

/**
 * Waits until the engine no longer runs worker `name`: not supervised, and
 * no connection of that name (its process may take a moment to go); false
 * on time-out.
 */
export async function waitForGone(
  link: EngineLink,
  name: string,
  options: WaitOptions,
): Promise<boolean> {
  const gone = await poll(async () => {
    const supervised = (await link.supervised()).some((s) => s.name === name);
    const connected = (await link.connected()).some((c) => c.name === name);
    return supervised || connected ? undefined : true;
  }, { timeoutMs: options.timeoutMs });
  return gone === true;
}

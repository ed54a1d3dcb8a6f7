/**
 * One supervised local worker: load its manifest, install its dependencies
 * when the cache says so, run `scripts.start` in its own process group, send
 * its output line by line to the engine's log, and restart it with
 * exponential backoff whenever it exits, until it is stopped.
 *
 * @module
 */

import type { Logger } from "../api.ts";
import {
  closeLifeline,
  ENGINE_ONLY_SECRETS,
  killGroup,
  OUTPUT_HELD,
  readOutput,
  spawnGroup,
} from "./group.ts";
import { install, installPaths } from "./install.ts";
import { type LoadedManifest, loadManifest } from "./manifest.ts";
import { osLimitHint } from "./os_limits.ts";

/**
 * The exit codes `sh` gives when it cannot run a command: said with the exit, naming the field,
 * since a typo in `scripts.start` otherwise looks like a worker crashing.
 */
export const SHELL_CODES: Record<number, string> = {
  126: `code 126 is the shell's "cannot execute": is the file executable?`,
  127: `code 127 is the shell's "command not found"`,
};

export type WorkerState = "installing" | "running" | "crashed" | "stopped";

/** How a supervised worker is restarted and stopped. Times in milliseconds. */
export interface SupervisionOptions {
  /** First restart delay; doubles on each quick crash. Default 1000. */
  initialBackoffMs: number;
  /** Longest restart delay. Default 30000. */
  maxBackoffMs: number;
  /** A run this long counts as stable: the delay starts over. Default 60000. */
  stableAfterMs: number;
  /** Quick crashes in a row after which the worker is reported as crash-looping. Default 5. */
  crashLoopAfter: number;
  /** Between SIGTERM and SIGKILL when stopping. Default 5000. */
  stopGraceMs: number;
  /** Output lines kept for status reports. Default 20. */
  tailLines: number;
  /** The clock. Default `Date.now`. */
  now: () => number;
  /** Waits `ms` or until `signal` aborts. Default a timer. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const DEFAULT_SUPERVISION: SupervisionOptions = {
  initialBackoffMs: 1000,
  maxBackoffMs: 30_000,
  stableAfterMs: 60_000,
  crashLoopAfter: 5,
  stopGraceMs: 5000,
  tailLines: 20,
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    }),
};

/** What `engine worker list` and the console show of a supervised worker. */
export interface WorkerStatus {
  name: string;
  /** The worker's folder, absolute. */
  path: string;
  /** `runtime.kind` of its manifest, once read. */
  kind: string | null;
  status: WorkerState;
  /** The process group leader while running. */
  pid: number | null;
  /** How many times it has been restarted after exiting. */
  restarts: number;
  started_at_ms: number | null;
  last_exit: { code: number; signal: string | null; at_ms: number; uptime_ms: number } | null;
  /** Set while waiting to restart. */
  next_start_at_ms: number | null;
  /** It exited quickly `crashLoopAfter` times in a row and has not run stably since. */
  crash_loop: boolean;
  /** Why it cannot run (invalid manifest, failed install), when that is the case. */
  error: string | null;
  install_log: string | null;
  /** Its last output lines. */
  tail: string[];
}

export interface SupervisedWorkerOptions {
  /** The config entry's name. */
  name: string;
  /** The worker's folder, absolute. */
  folder: string;
  /** Where install caches and logs go. */
  cacheDir: string;
  /** Added to the worker's environment after the manifest's own `env`. */
  env: Record<string, string>;
  /** Entries tagged with the worker's name. */
  log: Logger;
  supervision?: Partial<SupervisionOptions>;
}

/** How {@linkcode SupervisedWorker.stop} stops a worker. */
export interface StopOptions {
  /** Between SIGTERM and SIGKILL; default the worker's `stopGraceMs`. */
  graceMs?: number;
  /** Called right before the SIGKILL, while the worker's connection may still be there. */
  onKill?: () => void;
}

export class SupervisedWorker {
  readonly name: string;
  readonly folder: string;
  #options: SupervisedWorkerOptions;
  #s: SupervisionOptions;
  #state: WorkerState = "stopped";
  #kind: string | null = null;
  #pid: number | null = null;
  #restarts = 0;
  #quickCrashes = 0;
  #startedAt: number | null = null;
  #lastExit: WorkerStatus["last_exit"] = null;
  #nextStartAt: number | null = null;
  #error: string | null = null;
  #installLog: string | null = null;
  #tail: string[] = [];
  #abort: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: SupervisedWorkerOptions) {
    this.name = options.name;
    this.folder = options.folder;
    this.#options = options;
    this.#s = { ...DEFAULT_SUPERVISION, ...options.supervision };
  }

  get state(): WorkerState {
    return this.#state;
  }

  /** Starts supervising; returns at once. Does nothing while already supervising. */
  start(): void {
    if (this.#loop) return;
    this.#abort = new AbortController();
    this.#error = null;
    this.#quickCrashes = 0;
    this.#loop = this.#run(this.#abort.signal).finally(() => {
      this.#loop = undefined;
    });
  }

  /**
   * Stops the worker's processes (SIGTERM, SIGKILL after the grace period: `graceMs`, default
   * `stopGraceMs`) and supervision. `onKill` is called right before a SIGKILL.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    this.#abort?.abort();
    const graceMs = options.graceMs ?? this.#s.stopGraceMs;
    if (this.#pid !== null) await killGroup(this.#pid, graceMs, options.onKill);
    await this.#loop;
    this.#state = "stopped";
  }

  describe(): WorkerStatus {
    const s = this.#s;
    const stableNow = this.#state === "running" && this.#startedAt !== null &&
      s.now() - this.#startedAt >= s.stableAfterMs;
    return {
      name: this.name,
      path: this.folder,
      kind: this.#kind,
      status: this.#state,
      pid: this.#pid,
      restarts: this.#restarts,
      started_at_ms: this.#startedAt,
      last_exit: this.#lastExit,
      next_start_at_ms: this.#nextStartAt,
      crash_loop: this.#quickCrashes >= s.crashLoopAfter && !stableNow,
      error: this.#error,
      install_log: this.#installLog,
      tail: [...this.#tail],
    };
  }

  async #run(signal: AbortSignal): Promise<void> {
    const loaded = await this.#prepare(signal);
    if (!loaded || signal.aborted) return;
    const { log } = this.#options;
    const s = this.#s;
    let attempt = 0;
    while (!signal.aborted) {
      const exit = await this.#runOnce(loaded, signal);
      if (signal.aborted) break;
      if (!(exit instanceof Error) && exit.uptime_ms >= s.stableAfterMs) {
        attempt = 0;
        this.#quickCrashes = 0;
      } else {
        this.#quickCrashes++;
      }
      const delay = Math.min(s.initialBackoffMs * 2 ** attempt, s.maxBackoffMs);
      attempt++;
      this.#state = "crashed";
      this.#nextStartAt = s.now() + delay;
      if (exit instanceof Error) {
        // Often passing (the open-file or process limit reached): tried again like a crash.
        this.#error = `Cannot start worker "${this.name}": ${exit.message}${osLimitHint(exit)}`;
        log.error(`${this.#error}: retrying in ${delay} ms`);
      } else {
        const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
        const hint = exit.signal ? undefined : SHELL_CODES[exit.code];
        log.warn(
          `Worker "${this.name}" ${how} after ${exit.uptime_ms} ms: ` +
            (hint ? `${hint}: check scripts.start in ${loaded.file}: ` : "") +
            `restarting in ${delay} ms`,
        );
      }
      if (this.#quickCrashes === s.crashLoopAfter) {
        log.error(
          `Worker "${this.name}" keeps crashing: ${this.#quickCrashes} exits in a row, ` +
            `each within ${s.stableAfterMs} ms of starting; still restarting every ` +
            `${s.maxBackoffMs} ms at most`,
          { last_output: this.#tail.slice(-5) },
        );
      }
      await s.sleep(delay, signal);
      this.#nextStartAt = null;
      if (!signal.aborted) this.#restarts++;
    }
  }

  /** Reads the manifest and installs; undefined (state `crashed`) when the worker cannot run. */
  async #prepare(signal: AbortSignal): Promise<LoadedManifest | undefined> {
    const { log, cacheDir, env } = this.#options;
    this.#state = "installing";
    // Set again below when this start installs or finds its install cached.
    this.#installLog = null;
    let loaded: LoadedManifest;
    try {
      loaded = await loadManifest(this.folder);
    } catch (error) {
      return this.#cannotRun(`Cannot start worker "${this.name}": ${(error as Error).message}`);
    }
    this.#kind = loaded.manifest.runtime.kind;
    if (loaded.manifest.name !== this.name) {
      log.warn(
        `Worker "${this.name}": its manifest ${loaded.file} calls it "${loaded.manifest.name}"; ` +
          `the config's name is used`,
      );
    }
    const result = await install(loaded, {
      cacheDir,
      env,
      signal,
      tailLines: this.#s.tailLines,
      onStart: ({ command, log: file }) => {
        this.#installLog = file;
        log.info(`Installing dependencies: ${command} (in ${loaded.folder}; log ${file})`);
      },
      onLine: (line) => log.debug(line),
    });
    if (signal.aborted) return undefined;
    if (result.kind === "failed") {
      this.#tail = result.tail;
      return this.#cannotRun(
        `Install of worker "${this.name}" failed with exit code ${result.code}: see ${result.log}`,
        { last_output: result.tail.slice(-5) },
      );
    }
    if (result.kind === "installed") {
      log.info(`Installed dependencies of "${this.name}" in ${result.durationMs} ms`);
    } else if (result.kind === "cached") {
      // The install cache is kept by the manifest's name, which may differ from the config's.
      this.#installLog = installPaths(cacheDir, loaded.manifest.name).log;
    }
    return loaded;
  }

  #cannotRun(message: string, data?: unknown): undefined {
    this.#state = "crashed";
    this.#error = message;
    this.#options.log.error(message, data);
    return undefined;
  }

  /** One run of `scripts.start`; resolves when it exits, with the error when it could not start. */
  async #runOnce(loaded: LoadedManifest, signal: AbortSignal) {
    const { log, env } = this.#options;
    const command = loaded.manifest.scripts.start;
    let child: Deno.ChildProcess;
    try {
      child = spawnGroup(command, {
        cwd: loaded.folder,
        // Its output becomes log entries: text, not terminal colours (the manifest may say otherwise).
        env: { NO_COLOR: "1", ...loaded.manifest.env, ...env },
        withhold: ENGINE_ONLY_SECRETS,
        label: `engine-worker:${this.name}`,
        killAfterMs: this.#s.stopGraceMs,
      });
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    const startedAt = this.#s.now();
    this.#pid = child.pid;
    this.#startedAt = startedAt;
    this.#state = "running";
    this.#error = null;
    log.info(`Started worker "${this.name}": ${command} (in ${loaded.folder}, pid ${child.pid})`);
    const keep = (line: string) => {
      this.#tail.push(line);
      if (this.#tail.length > this.#s.tailLines) this.#tail.shift();
    };
    const output = readOutput(
      child,
      (line) => (keep(line), log.info(line)),
      (line) => (keep(line), log.warn(line)),
    );
    const status = await child.status;
    // Its children go with it; they also hold the output pipes open.
    await killGroup(child.pid, signal.aborted ? this.#s.stopGraceMs : 1000);
    // A process of a session of its own may too: without a bound, the exit would go unnoticed (no
    // restart) and stopping the engine would wait for that process to end.
    if (!await output.finish()) log.warn(`Worker "${this.name}" exited; ${OUTPUT_HELD}`);
    await closeLifeline(child);
    this.#pid = null;
    const now = this.#s.now();
    this.#lastExit = {
      code: status.code,
      signal: status.signal ?? null,
      at_ms: now,
      uptime_ms: now - startedAt,
    };
    if (signal.aborted) log.info(`Stopped worker "${this.name}"`);
    return this.#lastExit;
  }
}

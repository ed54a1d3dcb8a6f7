/**
 * The engine's local workers: one {@linkcode SupervisedWorker} per config
 * entry with a `path`. `reconcile` makes the running set match a new list of
 * entries (start the added, stop the removed, restart the changed), which is
 * all that live config reload needs. A changed entry whose new folder or
 * manifest is not usable leaves its worker running as it was.
 *
 * @module
 */

import { resolve } from "node:path";
import type { Logger } from "../api.ts";
import { diffWorkers } from "../config/diff.ts";
import type { WorkerEntry } from "../config/schema.ts";
import { loadManifest } from "./manifest.ts";
import {
  type StopOptions,
  SupervisedWorker,
  type SupervisionOptions,
  type WorkerStatus,
} from "./process.ts";

export interface SupervisorOptions {
  /** Entries' `path`s resolve against it (the config file's folder). */
  baseDir: string;
  /** Install caches and logs. */
  cacheDir: string;
  /** The engine's WebSocket URL as workers should dial it. */
  engineUrl: string;
  /** Given to workers as `ENGINE_TOKEN` when the engine requires one. */
  token?: string;
  /** The logger of worker `name` (entries tagged with its name). */
  loggerFor: (name: string) => Logger;
  supervision?: Partial<SupervisionOptions>;
}

/** What a reconcile did, by worker name. */
export interface ReconcileResult {
  started: string[];
  stopped: string[];
  restarted: string[];
  /** Changed entries not applied (their new folder or manifest is not usable): running as before. */
  kept: string[];
}

export class Supervisor {
  #options: SupervisorOptions;
  #entries: WorkerEntry[] = [];
  #workers = new Map<string, SupervisedWorker>();
  /** Reconciles, restarts and stops run one at a time, in call order. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /**
   * Makes the supervised workers match `entries` (those without a `path` are
   * ignored). New workers are started without waiting for them to run.
   */
  reconcile(entries: WorkerEntry[]): Promise<ReconcileResult> {
    return this.#serial(() => this.#reconcile(entries));
  }

  async #reconcile(entries: WorkerEntry[]): Promise<ReconcileResult> {
    const next = entries.filter((entry) => entry.path !== undefined);
    const diff = diffWorkers(this.#entries, next);
    // A running worker is only stopped for a new entry that can start.
    const kept: WorkerEntry[] = [];
    const changed: typeof diff.changed = [];
    for (const c of diff.changed) {
      const problem = this.#workers.has(c.previous.name) ? await this.#unusable(c.next) : undefined;
      if (problem === undefined) {
        changed.push(c);
        continue;
      }
      kept.push(c.previous);
      this.#options.loggerFor(c.next.name).warn(
        `Config change of worker "${c.next.name}" not applied, it runs on as before: ${problem}`,
      );
    }
    this.#entries = next.map((e) => kept.find((k) => k.name === e.name) ?? e);
    await Promise.all([
      ...diff.removed.map((entry) => this.#stop(entry.name)),
      ...changed.map(({ previous }) => this.#stop(previous.name)),
    ]);
    for (const entry of [...diff.added, ...changed.map((c) => c.next)]) this.#start(entry);
    return {
      started: diff.added.map((e) => e.name),
      stopped: diff.removed.map((e) => e.name),
      restarted: changed.map((c) => c.next.name),
      kept: kept.map((e) => e.name),
    };
  }

  /** Stops and starts worker `name` again (after a reinstall, say); false when unknown. */
  restart(name: string): Promise<boolean> {
    return this.#serial(async () => {
      const entry = this.#entries.find((e) => e.name === name);
      if (!entry) return false;
      await this.#stop(name);
      this.#start(entry);
      return true;
    });
  }

  /** The status of every supervised worker, in config order. */
  list(): WorkerStatus[] {
    return this.#entries.flatMap((entry) => this.#workers.get(entry.name)?.describe() ?? []);
  }

  get(name: string): WorkerStatus | undefined {
    return this.#workers.get(name)?.describe();
  }

  /**
   * Stops every worker (in parallel: SIGTERM to each at once, SIGKILL after `graceMs`, default
   * each worker's `stopGraceMs`) and forgets them. `onKill(name)` is called right before a SIGKILL.
   */
  stop(options: { graceMs?: number; onKill?: (name: string) => void } = {}): Promise<void> {
    return this.#serial(async () => {
      this.#entries = [];
      await Promise.all(
        [...this.#workers.keys()].map((name) =>
          this.#stop(name, {
            ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
            ...(options.onKill ? { onKill: () => options.onKill!(name) } : {}),
          })
        ),
      );
    });
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Why `entry`'s folder cannot run a worker (no folder, no or a bad manifest), if it cannot. */
  async #unusable(entry: WorkerEntry): Promise<string | undefined> {
    try {
      await loadManifest(resolve(this.#options.baseDir, entry.path!));
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  #start(entry: WorkerEntry): void {
    const o = this.#options;
    const env: Record<string, string> = {
      ENGINE_URL: o.engineUrl,
      ENGINE_WORKER_NAME: entry.name,
      ...(entry.config !== undefined ? { ENGINE_WORKER_CONFIG: JSON.stringify(entry.config) } : {}),
      ...(o.token ? { ENGINE_TOKEN: o.token } : {}),
    };
    const worker = new SupervisedWorker({
      name: entry.name,
      folder: resolve(o.baseDir, entry.path!),
      cacheDir: o.cacheDir,
      env,
      log: o.loggerFor(entry.name),
      ...(o.supervision ? { supervision: o.supervision } : {}),
    });
    this.#workers.set(entry.name, worker);
    worker.start();
  }

  async #stop(name: string, options?: StopOptions): Promise<void> {
    const worker = this.#workers.get(name);
    if (!worker) return;
    this.#workers.delete(name);
    await worker.stop(options);
  }
}

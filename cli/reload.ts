/**
 * Live reload of the config file in a running engine: re-read it, plan the
 * reload ({@linkcode planReload}), and apply a valid plan to the built-in
 * workers (stop, start, restart in the engine) and the local workers (the
 * supervisor). An invalid edit is logged with its file, line and field and
 * changes nothing: the engine keeps running what it ran. A built-in worker
 * whose changed config cannot start (its new port is taken, say) is started
 * again with its previous config, so a bad edit does not take it down.
 *
 * @module
 */

import type { Logger } from "../engine/api.ts";
import {
  type EngineConfig,
  type ParseConfigOptions,
  planReload,
  restartFields,
  restartNotice,
  restoredNotice,
  type WorkerEntry,
} from "../engine/config/mod.ts";
import type { RunningEngine } from "../engine/engine.ts";
import type { BuiltinFailure } from "../engine/supervisor/functions.ts";
import { osLimitHint } from "../engine/supervisor/os_limits.ts";
import type { Supervisor } from "../engine/supervisor/supervisor.ts";
import { BUILTIN_WORKERS } from "../workers/catalog.ts";

export interface ReloaderOptions {
  file: string;
  engine: RunningEngine;
  supervisor: Supervisor;
  /** The config the engine runs now. */
  config: EngineConfig;
  parse: Omit<ParseConfigOptions, "file">;
  /** The config a built-in worker starts with (the global middleware merged in, say). */
  builtinConfig: (config: EngineConfig, entry: WorkerEntry) => unknown;
  log: Logger;
}

export class ConfigReloader {
  #o: ReloaderOptions;
  #config: EngineConfig;
  /** The config the engine started with: what its restart-only fields run on. */
  #running: EngineConfig;
  /** The last edit was rejected: say so when the file is fine again. */
  #rejected = false;
  /** Built-in workers of the config that failed to start, until they start or leave it. */
  #failures = new Map<string, BuiltinFailure>();

  constructor(options: ReloaderOptions) {
    this.#o = options;
    this.#config = options.config;
    this.#running = options.config;
  }

  get config(): EngineConfig {
    return this.#config;
  }

  /** Built-in workers the last changes of the config could not start, with why. */
  builtinFailures(): BuiltinFailure[] {
    return [...this.#failures.values()];
  }

  /**
   * Re-reads the file and applies it; returns what the plan was, or `unread`
   * when the file could not be read for a passing reason (the open-file
   * limit): the caller tries again later.
   */
  async reload(): Promise<"apply" | "reject" | "unchanged" | "unread"> {
    const { file, log } = this.#o;
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      const hint = osLimitHint(error);
      if (hint !== "") {
        log.error(
          `Config change not read yet: cannot read ${file}: ${(error as Error).message}${hint}`,
        );
        return "unread";
      }
      log.error(`Config change ignored: cannot read ${file}: ${(error as Error).message}`);
      return "reject";
    }
    const plan = planReload(this.#config, text, { ...this.#o.parse, file });
    if (plan.kind === "reject") {
      log.error(`Config change ignored, still running the previous config: ${plan.error.message}`);
      this.#rejected = true;
      return "reject";
    }
    if (this.#rejected) log.info(`Config file ${file} is valid again`);
    this.#rejected = false;
    if (plan.kind === "unchanged") {
      await this.#retryFailed();
      return "unchanged";
    }
    const previous = this.#config;
    this.#config = plan.config;
    // A token the file now holds applies at the next start, but is masked in the log from now on:
    // a worker given it early (or printing the file) must not show it.
    this.#o.engine.addSecrets([plan.config.auth.token, plan.config.console.token]);
    // Each field only a restart applies is named, never its value (some are tokens).
    const fields = restartFields(this.#running, previous, plan.config);
    for (const path of fields.pending) log.warn(restartNotice(path));
    for (const path of fields.restored) log.info(restoredNotice(path));
    const { added, removed, changed } = plan.workers;
    const isBuiltin = (e: WorkerEntry) => e.path === undefined && e.name in BUILTIN_WORKERS;
    const stop = [...removed, ...changed.map((c) => c.previous)].filter(isBuiltin);
    const start = [...added, ...changed.map((c) => c.next)].filter(isBuiltin);
    /** What a restarted built-in worker ran before, to go back to if its new config fails. */
    const before = new Map<WorkerEntry, WorkerEntry>(
      changed.filter((c) => isBuiltin(c.previous) && isBuiltin(c.next)).map((c) => [
        c.next,
        c.previous,
      ]),
    );
    // The global middleware lives in engine-http's config: restart it when it changed.
    const isHttp = (e: WorkerEntry) => e.name === "engine-http" && isBuiltin(e);
    const http = plan.config.workers.find(isHttp);
    const httpWas = previous.workers.find(isHttp);
    if (plan.changedKeys.includes("rest_api") && http && httpWas && !start.includes(http)) {
      stop.push(http);
      start.push(http);
      before.set(http, httpWas);
    }
    // A running built-in worker that can take its new config as it runs does: engine-http keeps
    // its listener (a restart refused connections until the requests in progress finished).
    const reconfigured: WorkerEntry[] = [];
    for (const [next, was] of before) {
      if (!(await this.#reconfigure(next, plan.config))) continue;
      reconfigured.push(next);
      start.splice(start.indexOf(next), 1);
      stop.splice(stop.indexOf(was), 1);
    }
    // Calls to a restarting worker's functions wait for it instead of failing as not found.
    const restarting = new Set(start.map((e) => e.name));
    const releases = stop.filter((e) => restarting.has(e.name))
      .map((e) => this.#o.engine.holdCallsOf(e.name));
    const kept: WorkerEntry[] = [];
    try {
      for (const entry of stop) {
        this.#failures.delete(entry.name);
        await this.#o.engine.stopBuiltin(entry.name);
      }
      for (const entry of start) {
        if (await this.#startBuiltin(entry, plan.config)) continue;
        const was = before.get(entry);
        if (was && await this.#startBuiltin(was, previous)) {
          kept.push(entry);
          log.warn(
            `Worker "${entry.name}" runs on with its previous config: its new config could not start`,
          );
        }
      }
    } finally {
      for (const release of releases) release();
    }
    const local = await this.#o.supervisor.reconcile(plan.config.workers);
    const failed = start.filter((e) => this.#failures.has(e.name));
    const started = start.filter((e) => !failed.includes(e) && !kept.includes(e));
    const summary = [
      describe("started", [
        ...started.filter((e) => added.includes(e)).map((e) => e.name),
        ...local.started,
      ]),
      describe("stopped", [
        ...stop.filter((e) => removed.includes(e)).map((e) => e.name),
        ...local.stopped,
      ]),
      describe("restarted", [
        ...started.filter((e) => !added.includes(e)).map((e) => e.name),
        ...local.restarted,
      ]),
      describe("reconfigured", reconfigured.map((e) => e.name)),
      describe("kept on its previous config", [...kept.map((e) => e.name), ...local.kept]),
      describe("could not start", failed.map((e) => e.name)),
    ].filter((s) => s !== "");
    const line = `Config reloaded${summary.length > 0 ? `: ${summary.join("; ")}` : ""}`;
    if (failed.length > 0 || kept.length > 0 || local.kept.length > 0) log.warn(line);
    else log.info(line);
    return "apply";
  }

  /**
   * Starts again the built-in workers of the config that could not start: the
   * file was saved without a change, which is how a user (or `engine worker
   * add <name>`) asks for another try once the port is free, say.
   */
  async #retryFailed(): Promise<void> {
    const entries = this.#config.workers.filter((e) =>
      e.path === undefined && this.#failures.has(e.name)
    );
    if (entries.length === 0) return;
    const started: string[] = [];
    for (const entry of entries) {
      if (await this.#startBuiltin(entry, this.#config)) started.push(entry.name);
    }
    const failed = entries.map((e) => e.name).filter((name) => !started.includes(name));
    const summary = [describe("started", started), describe("could not start", failed)]
      .filter((s) => s !== "").join("; ");
    if (failed.length > 0) this.#o.log.warn(`Config saved unchanged: ${summary}`);
    else this.#o.log.info(`Config saved unchanged: ${summary}`);
  }

  /** Gives running built-in worker `entry` its new config, if it can take it without a restart. */
  async #reconfigure(entry: WorkerEntry, config: EngineConfig): Promise<boolean> {
    try {
      return await this.#o.engine.reconfigureBuiltin(
        entry.name,
        this.#o.builtinConfig(config, entry),
      );
    } catch (error) {
      this.#o.log.warn(
        `Worker "${entry.name}" could not take its new config as it runs, restarting it: ${
          (error as Error).message
        }`,
      );
      return false;
    }
  }

  /** Starts `entry` of `config`; a failure is logged and remembered. */
  async #startBuiltin(entry: WorkerEntry, config: EngineConfig): Promise<boolean> {
    const worker = BUILTIN_WORKERS[entry.name]!;
    try {
      await this.#o.engine.startBuiltin(worker, this.#o.builtinConfig(config, entry));
      this.#failures.delete(entry.name);
      const info = this.#o.engine.describeBuiltin(entry.name);
      this.#o.log.info(`Started worker ${entry.name}${info ? ` ${JSON.stringify(info)}` : ""}`);
      return true;
    } catch (error) {
      const message = (error as Error).message;
      this.#failures.set(entry.name, { name: entry.name, error: message, at: Date.now() });
      this.#o.log.error(`Worker "${entry.name}" failed to start: ${message}`);
      return false;
    }
  }
}

function describe(verb: string, names: string[]): string {
  return names.length === 0 ? "" : `${verb} ${names.map((n) => `"${n}"`).join(", ")}`;
}

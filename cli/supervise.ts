/**
 * The part of `engine --config` that keeps the running engine in line with
 * its config file: the supervisor of local workers, the `engine::supervisor::*`
 * functions, and the watcher that reloads the file when it changes.
 *
 * @module
 */

import type { EngineConfig, ParseConfigOptions, WorkerEntry } from "../engine/config/mod.ts";
import { watchConfigFile } from "../engine/config/watch.ts";
import type { RunningEngine } from "../engine/engine.ts";
import { dialableHost } from "../engine/host.ts";
import { registerSupervisorFunctions } from "../engine/supervisor/functions.ts";
import { installCacheDir } from "../engine/supervisor/install.ts";
import type { SupervisionOptions } from "../engine/supervisor/process.ts";
import { Supervisor } from "../engine/supervisor/supervisor.ts";
import { dirname } from "node:path";
import { ConfigReloader } from "./reload.ts";

export interface SuperviseOptions {
  /** The config file, absolute. */
  file: string;
  config: EngineConfig;
  engine: RunningEngine;
  parse: Omit<ParseConfigOptions, "file">;
  builtinConfig: (config: EngineConfig, entry: WorkerEntry) => unknown;
  supervision?: Partial<SupervisionOptions>;
}

export interface Supervision {
  supervisor: Supervisor;
  reloader: ConfigReloader;
  /**
   * Stops watching, then stops every local worker (SIGTERM, SIGKILL after a grace period:
   * {@linkcode Supervisor.stop}'s options).
   */
  stop(options?: Parameters<Supervisor["stop"]>[0]): Promise<void>;
}

/** Starts the config's local workers and watches the config file. */
export async function supervise(options: SuperviseOptions): Promise<Supervision> {
  const { file, config, engine } = options;
  const log = engine.logs.logger({ source: "engine" });
  const supervisor = new Supervisor({
    baseDir: dirname(file),
    cacheDir: installCacheDir(file),
    engineUrl: `ws://${dialableHost(engine.hostname)}:${engine.port}`,
    ...(config.auth.token ? { token: config.auth.token } : {}),
    loggerFor: (name) => engine.logs.logger({ source: name, worker: name }),
    ...(options.supervision ? { supervision: options.supervision } : {}),
  });
  const reloader = new ConfigReloader({
    file,
    engine,
    supervisor,
    config,
    parse: options.parse,
    builtinConfig: options.builtinConfig,
    log,
  });
  registerSupervisorFunctions(engine.builtinApi("engine"), {
    supervisor,
    engine: engine.engine,
    configFile: file,
    builtinFailures: () => reloader.builtinFailures(),
  });
  await supervisor.reconcile(config.workers);
  // A file not read for a passing reason (the open-file limit) is read again: 1 s, doubling to 30 s.
  let retry: ReturnType<typeof setTimeout> | undefined;
  let retryMs = 0;
  let stopped = false;
  /** The watcher's calls and the retries, one at a time. */
  let reloading = Promise.resolve();
  const reload = () => reloading = reloading.then(reloadNow);
  const reloadNow = async () => {
    clearTimeout(retry);
    if (stopped) return;
    try {
      if (await reloader.reload() !== "unread") return void (retryMs = 0);
      retryMs = Math.min(retryMs === 0 ? 1000 : retryMs * 2, 30_000);
      log.info(`Reading the config file again in ${retryMs} ms`);
      if (!stopped) retry = setTimeout(reload, retryMs);
    } catch (error) {
      log.error(`Config reload failed: ${(error as Error).message}`);
    }
  };
  const watcher = watchConfigFile(file, reload);
  // The engine read the file before it started its built-in workers, which may take a while: an
  // edit made since then came before the watcher, and is read now.
  reload();
  return {
    supervisor,
    reloader,
    async stop(stopOptions) {
      stopped = true;
      clearTimeout(retry);
      await watcher.close();
      // A reload under way (the first one, a retry) ends before the workers stop: else it could
      // start one after they did.
      await reloading;
      await supervisor.stop(stopOptions);
    },
  };
}

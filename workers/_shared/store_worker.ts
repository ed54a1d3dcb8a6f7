/**
 * The life of a built-in worker over one store (engine-state, engine-queue):
 * the store its config chooses is opened first and closed last, the start is
 * logged with where the data lives, and `describe()` begins with the adapter
 * and that place.
 *
 * @module
 */

import type { EngineApi, RunningWorker } from "../../engine/api.ts";
import {
  type OpenStoreOptions,
  type StoreConfig,
  type StoreLocation,
  storeLocation,
} from "./store_config.ts";

/** What a worker set up over its store. */
export interface StoreWorkerParts {
  /** Stops what the set-up started; the store is closed after it. */
  stop(): void | Promise<void>;
  /** The worker's own status fields, after `adapter` and the store's location. */
  describe(): Record<string, unknown>;
}

/** Options of {@link startStoreWorker}. */
export interface StoreWorkerOptions<S> {
  /** The worker in its start-up line: `State` logs `State worker started with the sqlite adapter`. */
  label: string;
  /** The worker's parsed config block. */
  config: StoreConfig;
  /** Opens the store `config` chooses (the worker's `adapters/open.ts`). */
  open(options: OpenStoreOptions): Promise<S>;
  /**
   * Registers the worker's functions (and the like) over the store, given where it keeps its data;
   * when it throws, the store is closed.
   */
  setup(store: S, location: StoreLocation): StoreWorkerParts | Promise<StoreWorkerParts>;
}

/**
 * Opens the store, sets the worker up over it and logs the start. Stopping
 * runs once however often it is asked: the parts stop, then the store closes.
 */
export async function startStoreWorker<S extends { close(): unknown }>(
  api: Pick<EngineApi, "baseDir" | "log" | "whenIdle">,
  options: StoreWorkerOptions<S>,
): Promise<RunningWorker> {
  const { config } = options;
  const store = await options.open({ baseDir: api.baseDir, log: api.log });
  const location = storeLocation(config, api.baseDir);
  let parts: StoreWorkerParts;
  try {
    parts = await options.setup(store, location);
  } catch (error) {
    await store.close();
    throw error;
  }
  api.log.info(`${options.label} worker started with the ${config.adapter} adapter`, location);

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        await parts.stop();
        // Its functions are unregistered: the calls they still run finish before the store
        // closes under them (a restart for a config reload would fail them otherwise).
        await api.whenIdle();
        await store.close();
      })();
      return stopped;
    },
    describe: () => ({ adapter: config.adapter, ...location, ...parts.describe() }),
  };
}

/**
 * `engine-queue`: the built-in queue worker. It provides
 * `engine::queue::enqueue`, which the engine calls for every
 * `TriggerAction.Enqueue({queue})`, stores each message durably (SQLite by
 * default, memory or Redis) and delivers it to its function with retries,
 * exponential backoff and dead letters; `engine::queue::*` functions list
 * queues and manage dead letters.
 *
 * ```yaml
 * workers:
 *   - name: engine-queue
 *     config:
 *       adapter: sqlite
 *       path: ./data/queue.db
 *       queues:
 *         emails: { concurrency: 4, max_attempts: 8 }
 * ```
 *
 * @module
 */

import type { BuiltinWorker, EngineApi, RunningWorker } from "../../engine/api.ts";
import { registerFunctions } from "../_shared/functions.ts";
import { startStoreWorker } from "../_shared/store_worker.ts";
import { openStore } from "./adapters/open.ts";
import { type Clock, systemClock } from "./clock.ts";
import {
  defaultConfig,
  isConfigured,
  parseConfig,
  type QueueConfig,
  QueueConfigSchema,
  settingsOf,
} from "./config.ts";
import { Counters } from "./counters.ts";
import { Dispatcher } from "./dispatcher.ts";
import { createQueueFunctions } from "./functions.ts";

export type { QueueConfig, QueueSettings } from "./config.ts";
export { QUEUE_FUNCTIONS } from "./functions.ts";

/** The `engine-queue` built-in worker. */
export const queueWorker: BuiltinWorker<QueueConfig> = {
  name: "engine-queue",
  description: "Durable queues for TriggerAction.Enqueue, with retries and dead letters",
  parseConfig,
  configSchema: QueueConfigSchema,
  defaultConfig,
  start: (api, config) => startQueueWorker(api, config),
};

/** Test hooks of {@link startQueueWorker}. */
export interface QueueWorkerOptions {
  clock?: Clock;
  /** How long stopping lets deliveries finish. Default 5000 ms. */
  shutdownGraceMs?: number;
  /** How long a queue stays empty and idle before it is forgotten. Default 5 minutes. */
  forgetAfterMs?: number;
}

/** Starts the queue worker on `api`; `given` may be a raw config block. */
export async function startQueueWorker(
  api: EngineApi,
  given: QueueConfig,
  options: QueueWorkerOptions = {},
): Promise<RunningWorker> {
  // Parsing is idempotent: this fills the defaults when a caller hands over a raw block.
  const config = parseConfig(given);
  const clock = options.clock ?? systemClock;
  return await startStoreWorker(api, {
    label: "Queue",
    config,
    open: (openOptions) => openStore(config, openOptions),
    setup: async (store, location) => {
      // A configured queue keeps its counters; one created on first use starts again at zero.
      const counters = new Counters({ keep: (queue) => isConfigured(config, queue) });
      const dispatcher = new Dispatcher({
        store,
        settingsOf: (queue) => settingsOf(config, queue),
        target: {
          call: (functionId, data, callOptions) => api.call(functionId, data, callOptions),
          hasFunction: (functionId) => api.hasFunction(functionId),
        },
        log: api.log,
        clock,
        ...(options.shutdownGraceMs === undefined
          ? {}
          : { shutdownGraceMs: options.shutdownGraceMs }),
        ...(options.forgetAfterMs === undefined ? {} : { forgetAfterMs: options.forgetAfterMs }),
        onEvent: (event) => counters.record(event),
        onForget: (queue) => counters.forget(queue),
      });
      const stored = await store.queues();
      const live = new Set(await store.liveQueues());
      const unregister = registerFunctions(
        api,
        createQueueFunctions({
          config,
          store,
          dispatcher,
          counters,
          clock,
          log: api.log,
          location,
        }),
      );
      dispatcher.start(new Set([...Object.keys(config.queues), ...live]));
      // Stored names without live messages (dead letters only, or empty): forgotten when idle.
      for (const queue of stored) dispatcher.touch(queue);
      return {
        async stop() {
          // Enqueues are still stored while deliveries in flight finish (a config reload restarts
          // this worker): the next start delivers them. Unregistering first refused them.
          await dispatcher.stop();
          unregister();
        },
        describe: () => ({ queues: dispatcher.queues.length }),
      };
    },
  });
}

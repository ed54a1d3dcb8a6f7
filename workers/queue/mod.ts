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
import { redactUrl } from "../_shared/redis.ts";
import { openStore, resolveQueuePath } from "./adapters/open.ts";
import { type Clock, systemClock } from "./clock.ts";
import { defaultConfig, parseConfig, type QueueConfig, settingsOf } from "./config.ts";
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
  defaultConfig,
  start: (api, config) => startQueueWorker(api, config),
};

/** Test hooks of {@link startQueueWorker}. */
export interface QueueWorkerOptions {
  clock?: Clock;
  /** How long stopping lets deliveries finish. Default 5000 ms. */
  shutdownGraceMs?: number;
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
  const store = await openStore(config, { baseDir: api.baseDir, log: api.log });
  const location = config.adapter === "sqlite"
    ? { path: resolveQueuePath(config.path, api.baseDir) }
    : config.adapter === "redis"
    ? { url: redactUrl(config.url) }
    : {};
  const counters = new Counters();
  const dispatcher = new Dispatcher({
    store,
    settingsOf: (queue) => settingsOf(config, queue),
    target: {
      call: (functionId, data, callOptions) => api.call(functionId, data, callOptions),
      hasFunction: (functionId) => api.hasFunction(functionId),
    },
    log: api.log,
    clock,
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
    onEvent: (event) => counters.record(event),
  });
  let unregister: () => void;
  try {
    const stored = await store.queues();
    unregister = registerFunctions(
      api,
      createQueueFunctions({ config, store, dispatcher, counters, clock, log: api.log }),
    );
    dispatcher.start(new Set([...Object.keys(config.queues), ...stored]));
  } catch (error) {
    await store.close();
    throw error;
  }
  api.log.info(`Queue worker started with the ${config.adapter} adapter`, location);

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        unregister();
        await dispatcher.stop();
        await store.close();
      })();
      return stopped;
    },
    describe: () => ({
      adapter: config.adapter,
      ...location,
      queues: dispatcher.queues.length,
    }),
  };
}

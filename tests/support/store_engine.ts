/**
 * Test support: the config of an engine process whose state (and queues)
 * live in a store the test chooses, without the console.
 *
 * @module
 */

/** The config blocks of the built-in store workers; an absent one is not started. */
export interface StoreWorkers {
  /** engine-state's block: `{adapter: "redis", url}`, `{path: "./state.db"}`, … */
  state?: Record<string, unknown>;
  /** engine-queue's block. */
  queue?: Record<string, unknown>;
}

/**
 * The engine-config.yaml text (JSON, which is YAML) of an engine on `port`
 * (0: any free one; a fixed one to restart the engine where workers wait for
 * it) running the store workers given.
 */
export function storeEngineConfig(workers: StoreWorkers, port = 0): string {
  const entries = [];
  if (workers.state) entries.push({ name: "engine-state", config: workers.state });
  if (workers.queue) entries.push({ name: "engine-queue", config: workers.queue });
  return JSON.stringify({ port, console: { enabled: false }, workers: entries }, null, 2);
}

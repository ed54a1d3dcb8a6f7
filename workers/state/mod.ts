/**
 * `engine-state`: the built-in state worker. It registers the `state::*`
 * functions (a scoped key-value store of JSON values on SQLite, memory or
 * Redis) and the `state` trigger type that fires on every change.
 *
 * ```yaml
 * workers:
 *   - name: engine-state
 *     config:
 *       adapter: sqlite
 *       path: ./data/state.db
 * ```
 *
 * @module
 */

import type { BuiltinWorker, EngineApi, RunningWorker } from "../../engine/api.ts";
import { registerFunctions } from "../_shared/functions.ts";
import { redactUrl } from "../_shared/redis.ts";
import { openStore, resolveStatePath } from "./adapters/open.ts";
import { defaultConfig, parseConfig, type StateConfig } from "./config.ts";
import { createStateFunctions } from "./functions.ts";
import { StateTriggers } from "./triggers.ts";

export type { StateConfig } from "./config.ts";
export type { StateEvent, StateEventType, StateTriggerConfig } from "./triggers.ts";

/** The `engine-state` built-in worker. */
export const stateWorker: BuiltinWorker<StateConfig> = {
  name: "engine-state",
  description: "Scoped key-value state (state::*) with change triggers",
  parseConfig,
  defaultConfig,
  start: startStateWorker,
};

async function startStateWorker(api: EngineApi, given: StateConfig): Promise<RunningWorker> {
  // Parsing is idempotent: this fills the defaults when a caller hands over a raw block.
  const config = parseConfig(given);
  const store = await openStore(config, { baseDir: api.baseDir, log: api.log });
  const location = config.adapter === "sqlite"
    ? { path: resolveStatePath(config.path, api.baseDir) }
    : config.adapter === "redis"
    ? { url: redactUrl(config.url) }
    : {};
  const triggers = new StateTriggers(api);
  let unregisterType: () => void;
  try {
    unregisterType = api.registerTriggerType(
      "state",
      "Fires on state changes: {scope?, key?}",
      triggers,
    );
  } catch (error) {
    await store.close();
    throw error;
  }
  const functions = createStateFunctions({
    store,
    log: api.log,
    onChange: (event) => triggers.fire(event),
  });
  const unregisterFunctions = registerFunctions(api, functions);
  api.log.info(`State worker started with the ${config.adapter} adapter`, location);

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        unregisterFunctions();
        unregisterType();
        triggers.stop();
        await store.close();
      })();
      return stopped;
    },
    describe: () => ({ adapter: config.adapter, ...location, triggers: triggers.size }),
  };
}

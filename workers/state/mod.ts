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
import { startStoreWorker } from "../_shared/store_worker.ts";
import { openStore } from "./adapters/open.ts";
import { defaultConfig, parseConfig, type StateConfig, StateConfigSchema } from "./config.ts";
import { createStateFunctions } from "./functions.ts";
import { StateTriggers } from "./triggers.ts";
import { STATE_TRIGGER_FORMATS } from "./trigger_formats.ts";

export type { StateConfig } from "./config.ts";
export type { StateEvent, StateEventType, StateTriggerConfig } from "./triggers.ts";

/** The `engine-state` built-in worker. */
export const stateWorker: BuiltinWorker<StateConfig> = {
  name: "engine-state",
  description: "Scoped key-value state (state::*) with change triggers",
  parseConfig,
  configSchema: StateConfigSchema,
  defaultConfig,
  start: startStateWorker,
};

async function startStateWorker(api: EngineApi, given: StateConfig): Promise<RunningWorker> {
  // Parsing is idempotent: this fills the defaults when a caller hands over a raw block.
  const config = parseConfig(given);
  return await startStoreWorker(api, {
    label: "State",
    config,
    open: (options) => openStore(config, options),
    setup: (store, location) => {
      const triggers = new StateTriggers(api);
      const unregisterType = api.registerTriggerType(
        "state",
        "Fires on state changes: {scope?, key?}",
        triggers,
        STATE_TRIGGER_FORMATS,
      );
      const functions = createStateFunctions({
        store,
        location,
        log: api.log,
        onChange: (event, cause) => triggers.fire(event, cause),
      });
      const unregisterFunctions = registerFunctions(api, functions);
      return {
        stop() {
          unregisterFunctions();
          unregisterType();
          triggers.stop();
        },
        describe: () => ({ triggers: triggers.size }),
      };
    },
  });
}

/**
 * The `config:` block of the `engine-state` worker: its zod schema, defaults
 * and the reference configuration `worker add engine-state` writes.
 *
 * @module
 */

import { z } from "zod";
import { storeConfigFields } from "../_shared/store_config.ts";
import { DEFAULT_MAX_LIST_BYTES } from "./list_bound.ts";

/** 1 MiB: the default `max_value_bytes`. */
export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

/** The schema of the `engine-state` config block; unknown keys are refused. */
export const StateConfigSchema = z.strictObject({
  /** Where values live: `adapter`, `path` (default `./data/state.db`), `synchronous`, `url`. */
  ...storeConfigFields("./data/state.db"),
  /** Largest value `state::set` and `state::update` store, in bytes of compact JSON. */
  max_value_bytes: z.number().int().positive().default(DEFAULT_MAX_VALUE_BYTES),
  /** Largest answer of `state::list` and `state::list_keys`, in bytes of keys and values. */
  max_list_bytes: z.number().int().positive().default(DEFAULT_MAX_LIST_BYTES),
});

/** The parsed config of the `engine-state` worker. */
export type StateConfig = z.infer<typeof StateConfigSchema>;

/**
 * Validates a `config:` block; a missing block means every default.
 * Throws a `ZodError` whose issues name the field.
 */
export function parseConfig(raw: unknown): StateConfig {
  return StateConfigSchema.parse(raw ?? {});
}

/** The reference configuration, written by `worker add engine-state`. */
export const defaultConfig: Record<string, unknown> = {
  adapter: "sqlite",
  path: "./data/state.db",
};

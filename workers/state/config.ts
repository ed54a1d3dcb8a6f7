/**
 * The `config:` block of the `engine-state` worker: its zod schema, defaults
 * and the reference configuration `worker add engine-state` writes.
 *
 * @module
 */

import { z } from "zod";

/** 1 MiB: the default `max_value_bytes`. */
export const DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

const redisUrl = z.string().refine(
  (url) => /^rediss?:\/\//.test(url) && URL.canParse(url),
  { message: 'must be a URL starting with "redis://" or "rediss://"' },
);

/** The schema of the `engine-state` config block; unknown keys are refused. */
export const StateConfigSchema = z.strictObject({
  /** Where values live: `sqlite` (default), `memory` (lost on restart) or `redis`. */
  adapter: z.enum(["sqlite", "memory", "redis"]).default("sqlite"),
  /** The SQLite database file; relative paths resolve against the engine's base folder. */
  path: z.string().min(1).default("./data/state.db"),
  /** How often SQLite fsyncs: `normal` survives a killed engine, `full` survives power loss too. */
  synchronous: z.enum(["normal", "full"]).default("normal"),
  /** The Redis server, for the `redis` adapter. */
  url: redisUrl.default("redis://localhost:6379"),
  /** Largest value `state::set` and `state::update` store, in bytes of compact JSON. */
  max_value_bytes: z.number().int().positive().default(DEFAULT_MAX_VALUE_BYTES),
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

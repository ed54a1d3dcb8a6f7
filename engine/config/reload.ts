/**
 * What a running engine does with an edited config file: a valid edit is
 * applied as a worker diff plus the other top-level keys that changed; an
 * invalid one is reported and ignored, so the engine keeps its current config.
 *
 * @module
 */

import { diffWorkers, equal, type WorkersDiff } from "./diff.ts";
import type { ConfigError } from "./error.ts";
import { parseConfig, type ParseConfigOptions } from "./parse.ts";
import type { EngineConfig } from "./schema.ts";

export type ReloadPlan =
  | {
    kind: "apply";
    config: EngineConfig;
    workers: WorkersDiff;
    /** Top-level keys other than `workers` whose values changed, like `port` or `rest_api`. */
    changedKeys: (keyof EngineConfig)[];
  }
  /** The edit is invalid: log `error.message` and keep running on the current config. */
  | { kind: "reject"; error: ConfigError }
  /** Nothing that the engine reads changed (a comment, say). */
  | { kind: "unchanged" };

/**
 * Plans the reload of `text`, the config file's new content, over `current`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * import { planReload } from "./reload.ts";
 * const options = { file: "engine-config.yaml", env: () => undefined };
 * const before = parseConfig("workers: []\n", options);
 * if (!before.ok) throw before.error;
 * const plan = planReload(before.config, "workers: []\nprot: 1\n", options);
 * console.log(plan.kind); // "reject"
 * ```
 */
export function planReload(
  current: EngineConfig,
  text: string,
  options: ParseConfigOptions,
): ReloadPlan {
  const parsed = parseConfig(text, options);
  if (!parsed.ok) return { kind: "reject", error: parsed.error };
  const { config } = parsed;
  const workers = diffWorkers(current.workers, config.workers);
  const keys = new Set([...Object.keys(current), ...Object.keys(config)]) as Set<
    keyof EngineConfig
  >;
  const changedKeys = [...keys].filter((key) =>
    key !== "workers" && !equal(current[key], config[key])
  );
  const workersChanged = workers.added.length + workers.removed.length + workers.changed.length > 0;
  if (!workersChanged && changedKeys.length === 0) return { kind: "unchanged" };
  return { kind: "apply", config, workers, changedKeys };
}

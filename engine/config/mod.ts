/**
 * The engine config file (`engine-config.yaml`): its schema, loading with
 * `${VAR:default}` expansion and errors that name file, line and field, the
 * text edits behind `engine worker add` / `remove`, and the worker diff that
 * drives live reload.
 *
 * @example
 * ```ts ignore
 * import { loadConfigFile } from "./mod.ts";
 * const result = await loadConfigFile("engine-config.yaml", { workerConfigs });
 * if (!result.ok) {
 *   console.error(result.error.message); // engine-config.yaml:12:13: workers[1].config.port: …
 *   Deno.exit(1);
 * }
 * ```
 *
 * @module
 */

export { CONSOLE_TOKEN_ENV, ENGINE_TOKEN_ENV } from "./auth.ts";
export { type ChangedWorker, diffWorkers, type WorkersDiff } from "./diff.ts";
export {
  addWorkerEntry,
  type AddWorkerResult,
  findWorkerEntry,
  type FoundWorkerEntry,
  removeWorkerEntry,
  type RemoveWorkerResult,
  type WorkerEntryInput,
} from "./edit.ts";
export { expandEnv, type ExpandResult } from "./env.ts";
export { ConfigError, type ConfigErrorOptions } from "./error.ts";
export { DEFAULT_CONFIG_FILE, loadConfigFile, type LoadConfigOptions } from "./load.ts";
export { placeOf } from "./locate.ts";
export { parseConfig, type ParseConfigOptions, type ParseConfigResult } from "./parse.ts";
export {
  AuthConfig,
  BUILTIN_WORKER_NAMES,
  ConsoleConfig,
  DEFAULT_PORT,
  EngineConfig,
  isValidWorkerName,
  MiddlewareEntry,
  WorkerEntry,
} from "./schema.ts";
export { planReload, type ReloadPlan } from "./reload.ts";
export {
  APPLIED,
  type RestartFields,
  restartFields,
  restartNotice,
  restoredNotice,
} from "./restart_fields.ts";

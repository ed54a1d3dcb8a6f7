/**
 * The built-in workers by name: what a `workers` entry without a `path`
 * refers to, and what `engine worker add <name>` knows.
 *
 * @module
 */
import type { BuiltinWorker } from "../engine/api.ts";
import type { WorkerConfigParser } from "../engine/config/parse.ts";
import { httpWorker } from "./http/mod.ts";
import { queueWorker } from "./queue/mod.ts";
import { stateWorker } from "./state/mod.ts";

export const BUILTIN_WORKERS: Record<string, BuiltinWorker<unknown>> = {
  [httpWorker.name]: httpWorker as BuiltinWorker<unknown>,
  [stateWorker.name]: stateWorker as BuiltinWorker<unknown>,
  [queueWorker.name]: queueWorker as BuiltinWorker<unknown>,
};

/** Each built-in worker's config parser, for the config loader. */
export function builtinConfigParsers(): Record<string, WorkerConfigParser> {
  return Object.fromEntries(
    Object.values(BUILTIN_WORKERS).map((w) => [
      w.name,
      Object.assign((raw: unknown) => w.parseConfig(raw), { schema: w.configSchema }),
    ]),
  );
}

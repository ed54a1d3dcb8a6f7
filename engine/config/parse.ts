/**
 * Config text to a validated {@linkcode EngineConfig}: expand `${VAR}`, parse
 * the YAML, validate with the engine's schema, then each built-in worker's
 * `config:` block with that worker's own schema. The first problem in file
 * order comes back as one {@linkcode ConfigError} naming file, line and field.
 *
 * @module
 */

import { parseDocument } from "yaml";
import { applyTokens } from "./auth.ts";
import { expandEnv } from "./env.ts";
import type { ConfigError } from "./error.ts";
import { describeIssue, isZodError, type Problem } from "./issues.ts";
import { formatPath, pathAtOffset } from "./locate.ts";
import { BUILTIN_WORKER_NAMES, EngineConfig, WorkerEntry } from "./schema.ts";
import { YamlSource } from "./yaml_source.ts";

export interface ParseConfigOptions {
  /** The file's name as messages should show it. */
  file: string;
  /** Reads an environment variable, for `${VAR}` and the tokens. */
  env: (name: string) => string | undefined;
  /**
   * The built-in workers' config parsers by worker name (zod `parse`, throwing
   * a ZodError). Without it, the names in {@linkcode BUILTIN_WORKER_NAMES} are
   * accepted and their `config:` blocks are not checked.
   */
  workerConfigs?: Record<string, WorkerConfigParser>;
}

/**
 * A built-in worker's config parser (throws a ZodError), with the schema it
 * checks against when known: an unknown field gets "did you mean" from it.
 */
export type WorkerConfigParser = { (raw: unknown): unknown; schema?: unknown };

export type ParseConfigResult =
  | { ok: true; config: EngineConfig }
  | { ok: false; error: ConfigError };

/**
 * Parses and validates a config file's text. In the returned config every
 * built-in worker's `config` is the value its parser returned (a missing block
 * is parsed as `{}`, so its defaults apply), and `auth.token` and
 * `console.token` fall back to `ENGINE_TOKEN` and `ENGINE_CONSOLE_TOKEN`.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * const result = parseConfig("port: ${PORT:49134}\nworkers: []\n", {
 *   file: "engine-config.yaml",
 *   env: () => undefined,
 * });
 * if (!result.ok) throw result.error;
 * console.log(result.config.port); // 49134
 * ```
 */
export function parseConfig(text: string, options: ParseConfigOptions): ParseConfigResult {
  const source = new YamlSource(options.file, text);
  const expanded = expandEnv(text, options.env);
  if (!expanded.ok) {
    // Each `${…}` masked by as many plain characters: in a flow collection its `{` would open a map.
    const masked = text.replace(/\$\{[^}\n]*\}/g, (variable) => "_".repeat(variable.length));
    const path = formatPath(pathAtOffset(parseDocument(masked), expanded.offset));
    const problem = expanded.problem ??
      `Environment variable "${expanded.name}" is not set and has no default: ` +
        `set it, or write "\${${expanded.name}:default}"`;
    return { ok: false, error: source.errorAt(expanded.offset, problem, { path }) };
  }
  const yaml = source.parseYaml({ text: expanded.text, toOriginal: expanded.toOriginal });
  if (!yaml.ok) return yaml;
  const raw = yaml.raw ?? {};
  const first = (problems: Problem[]): ParseConfigResult => ({
    ok: false,
    error: yaml.firstProblem(problems),
  });

  const parsed = EngineConfig.safeParse(raw);
  if (!parsed.success) {
    // Check the worker blocks too, so the problem reported is the first in the file.
    const entries = (raw as { workers?: unknown }).workers;
    const workerProblems = Array.isArray(entries)
      ? entries.flatMap((entry, index) => {
        const shaped = WorkerEntry.safeParse(entry);
        return shaped.success ? checkWorker(shaped.data, index, options) : [];
      })
      : [];
    const problems = parsed.error.issues.map((issue) =>
      describeIssue(issue, raw, { schema: EngineConfig })
    );
    return first([...problems, ...workerProblems]);
  }
  const config = parsed.data;
  const problems = config.workers.flatMap((worker, index) => checkWorker(worker, index, options));
  if (problems.length > 0) return first(problems);

  const exposed = applyTokens(config, options.env);
  if (exposed) return first([{ ...exposed, atKey: false }]);
  return { ok: true, config };
}

/** Validates `workers[index]`, replacing a built-in's `config` with its parsed value. */
function checkWorker(worker: WorkerEntry, index: number, options: ParseConfigOptions): Problem[] {
  const parsers = options.workerConfigs;
  const builtins = parsers ? Object.keys(parsers) : BUILTIN_WORKER_NAMES;
  if (worker.path !== undefined) {
    // `engine worker add` refuses such a manifest; by hand it would make a local worker that
    // every command takes for the built-in one.
    if (!builtins.includes(worker.name)) return [];
    return [{
      path: ["workers", index, "path"],
      problem: `"${worker.name}" is the name of a built-in worker, which takes no path: ` +
        "rename the local worker (in its engine.worker.yaml too), or remove this path for " +
        "the built-in one",
      atKey: false,
    }];
  }
  if (!builtins.includes(worker.name)) {
    const list = builtins.map((name) => `"${name}"`).join(", ");
    return [{
      path: ["workers", index, "name"],
      problem:
        `Unknown worker "${worker.name}": give it a "path", or use a built-in worker: ${list}`,
      atKey: false,
    }];
  }
  const parse = parsers?.[worker.name];
  if (!parse) return [];
  const block = worker.config ?? {};
  try {
    worker.config = parse(block);
    return [];
  } catch (error) {
    const prefix = ["workers", index, "config"];
    if (isZodError(error)) {
      return error.issues.map((issue) =>
        describeIssue(issue, block, { prefix, schema: parse.schema })
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return [{ path: prefix, problem: message, atKey: false }];
  }
}

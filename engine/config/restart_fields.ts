/**
 * Which settings of the config file a running engine applies when the file
 * changes, and which only a restart applies: every top-level key is listed
 * (the record's type makes a key added to the schema a compile error here
 * until it is), so no edit is ignored without a line saying so.
 *
 * @module
 */

import { equal } from "./diff.ts";
import type { EngineConfig } from "./schema.ts";

/**
 * How each top-level key reaches a running engine: `live`, applied on the
 * edit (the workers started, stopped or restarted; `rest_api` through
 * engine-http), or `restart`, read once at start-up (but its
 * {@linkcode LIVE_FIELDS}).
 */
export const APPLIED: Readonly<Record<keyof EngineConfig, "live" | "restart">> = {
  host: "restart",
  port: "restart",
  invocation_timeout_ms: "restart",
  max_frame_bytes: "restart",
  shutdown_timeout_ms: "live",
  auth: "restart",
  workers: "live",
  console: "restart",
  rest_api: "live",
  logs: "restart",
  traces: "restart",
  channels: "restart",
};

/**
 * Fields under a `restart` key that a running engine applies on the edit
 * all the same: how the terminal prints the log (`cli/log_printer.ts`).
 */
export const LIVE_FIELDS: ReadonlySet<string> = new Set(["logs.level", "logs.format"]);

/** Fields only a restart applies, as the lines a reload logs about them. */
export interface RestartFields {
  /** Changed by this edit and unlike what the engine runs: applied at the next start. */
  pending: string[];
  /** Changed by this edit back to what the engine runs: nothing waits for a restart any more. */
  restored: string[];
}

/**
 * The restart-only fields (dotted paths, such as `auth.token` or
 * `logs.max_entries`) that an edit from `previous` to `next` changed, split
 * by whether they now differ from `running`, the config the engine started
 * with. Values are never part of the result: some are tokens.
 *
 * @example
 * ```ts
 * import { parseConfig } from "./parse.ts";
 * import { restartFields } from "./restart_fields.ts";
 * const read = (text: string) => {
 *   const parsed = parseConfig(text, { file: "engine-config.yaml", env: () => undefined });
 *   if (!parsed.ok) throw parsed.error;
 *   return parsed.config;
 * };
 * const running = read("port: 1\n");
 * console.log(restartFields(running, running, read("port: 2\n")).pending); // ["port"]
 * ```
 */
export function restartFields(
  running: EngineConfig,
  previous: EngineConfig,
  next: EngineConfig,
): RestartFields {
  const result: RestartFields = { pending: [], restored: [] };
  const keys = Object.keys(APPLIED) as (keyof EngineConfig)[];
  for (const key of keys.filter((k) => APPLIED[k] === "restart")) {
    for (const path of changedPaths(previous[key], next[key], key)) {
      if (LIVE_FIELDS.has(path)) continue;
      const target = equal(valueAt(running, path), valueAt(next, path))
        ? result.restored
        : result.pending;
      target.push(path);
    }
  }
  return result;
}

/** The line a reload logs for restart-only field `path` changed by an edit. */
export function restartNotice(path: string): string {
  const line = `Config change of "${path}" takes effect when the engine restarts`;
  if (path === "auth.token") {
    return `${line}: until then the engine accepts only the token it started with, from ` +
      "connected and new workers, the supervised workers it starts (it gives them that token) " +
      "and the CLI";
  }
  if (path === "console.token") {
    return `${line}: until then the console accepts only the token it started with`;
  }
  return line;
}

/** The line a reload logs for restart-only field `path` edited back to what the engine runs. */
export function restoredNotice(path: string): string {
  return `Config change of "${path}" undone: the file holds what the engine runs again`;
}

/** Dotted paths of the leaves (scalars, lists, absent values) that differ between `a` and `b`. */
function changedPaths(a: unknown, b: unknown, path: string): string[] {
  if (equal(a, b)) return [];
  if (!isRecord(a) || !isRecord(b)) return [path];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((key) => changedPaths(a[key], b[key], `${path}.${key}`));
}

function valueAt(config: EngineConfig, path: string): unknown {
  let value: unknown = config;
  for (const part of path.split(".")) value = isRecord(value) ? value[part] : undefined;
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The engine config file's schema: every object is strict (an unknown key is
 * an error, so a misspelled `prot:` never silently falls back to a default),
 * and every field that can have a default has one, so a file holding only
 * `workers: []` is a complete config.
 *
 * @module
 */

import { z } from "zod";
import { DEFAULT_MAX_PER_WORKER, DEFAULT_MAX_TOTAL } from "../channels/limits.ts";
import { checkFunctionId } from "../protocol/ids.ts";
import { tokenProblem } from "../token.ts";

/** The engine's WebSocket port when the config file names none. */
export const DEFAULT_PORT = 49134;

/** The built-in workers the engine ships, by the name a config entry uses. */
export const BUILTIN_WORKER_NAMES: readonly string[] = [
  "engine-http",
  "engine-state",
  "engine-queue",
];

/**
 * Whether `name` can name a worker: letters, digits, `.`, `_` and `-`, not
 * starting with `.` and without `..`, so a name is always safe as a folder name.
 */
export function isValidWorkerName(name: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(name) && !name.startsWith(".") && !name.includes("..");
}

/** The values of `logs.level`, lowest first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** The values of `logs.format`. */
export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const Port = z.number().int().min(0).max(65535);

/** A bearer token: printable ASCII, as every client sends it alike ({@linkcode tokenProblem}). */
const Token = z.string().min(1).superRefine((token, ctx) => {
  const problem = tokenProblem(token);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/** One entry of `workers`: a built-in (by name) or a local worker (with a `path`). */
export const WorkerEntry = z.strictObject({
  name: z.string().refine(isValidWorkerName, {
    error: (issue) =>
      `Invalid worker name ${JSON.stringify(issue.input)}: ` +
      "use letters, digits, '.', '_' and '-', not starting with '.' and without '..'",
  }),
  /** Folder of a local worker, relative to the config file. */
  path: z.string().min(1).optional(),
  /** The worker's own settings; a built-in worker validates them with its own schema. */
  config: z.unknown().optional(),
});

/** One global HTTP middleware, run before every HTTP handler. */
export const MiddlewareEntry = z.strictObject({
  function_id: z.string().min(1).superRefine((id, ctx) => {
    const problem = checkFunctionId(id);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }),
  phase: z.literal("preHandler").default("preHandler"),
  /** Lower runs first; equal priorities keep config order. */
  priority: z.number().default(0),
});

export const ConsoleConfig = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: Port.default(3113),
  enabled: z.boolean().default(true),
  /** Required when `host` is not a loopback address (or `ENGINE_CONSOLE_TOKEN`). */
  token: Token.optional(),
});

export const AuthConfig = z.strictObject({
  /** When set (or `ENGINE_TOKEN`), a worker must present it to connect. */
  token: Token.optional(),
});

/** The whole config file. */
export const EngineConfig = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: Port.default(DEFAULT_PORT),
  invocation_timeout_ms: z.number().int().positive().default(30_000),
  max_frame_bytes: z.number().int().positive().default(16 * 1024 * 1024),
  /** How long a stop (SIGTERM, SIGINT) may take before what is left is cut off: under docker's 10 s. */
  shutdown_timeout_ms: z.number().int().min(1000).default(8000),
  auth: AuthConfig.prefault({}),
  workers: z.array(WorkerEntry).default([]).superRefine((workers, ctx) => {
    const seen = new Map<string, number>();
    workers.forEach((worker, index) => {
      const first = seen.get(worker.name);
      if (first === undefined) {
        seen.set(worker.name, index);
        return;
      }
      ctx.addIssue({
        code: "custom",
        path: [index, "name"],
        message: `Duplicate worker name "${worker.name}": already used by workers[${first}]`,
      });
    });
  }),
  console: ConsoleConfig.prefault({}),
  rest_api: z.strictObject({ middleware: z.array(MiddlewareEntry).default([]) }).prefault({}),
  logs: z.strictObject({
    max_entries: z.number().int().positive().default(10_000),
    /** Keys whose values are redacted in logs and spans, besides `authorization`, `cookie`, … */
    redact: z.array(z.string().min(1)).default([]),
    /** The lowest level printed on standard output; the store keeps every level. */
    level: z.enum(LOG_LEVELS).default("info"),
    /** How a log entry is printed: `text`, or `json` (one object per line). */
    format: z.enum(LOG_FORMATS).default("text"),
  }).prefault({}),
  traces: z.strictObject({ max_spans: z.number().int().positive().default(10_000) }).prefault({}),
  /** Data channels made by `engine::channels::create` that may be alive at once. */
  channels: z.strictObject({
    max_per_worker: z.number().int().positive().default(DEFAULT_MAX_PER_WORKER),
    max_total: z.number().int().positive().default(DEFAULT_MAX_TOTAL),
  }).prefault({}),
});

export type EngineConfig = z.infer<typeof EngineConfig>;
export type WorkerEntry = z.infer<typeof WorkerEntry>;
export type MiddlewareEntry = z.infer<typeof MiddlewareEntry>;
export type ConsoleConfig = z.infer<typeof ConsoleConfig>;
export type AuthConfig = z.infer<typeof AuthConfig>;

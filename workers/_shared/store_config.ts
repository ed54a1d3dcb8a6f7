/**
 * The store a worker's config block chooses (engine-state, engine-queue):
 * the `adapter`, `path`, `synchronous` and `url` fields with their defaults
 * and validation, where the chosen store keeps its data, and opening it.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import type { Logger } from "../../engine/api.ts";
import { redactUrl, redisUrlProblem } from "./redis_url.ts";

const redisUrl = z.string().refine(
  (url) => /^rediss?:\/\//.test(url) && URL.canParse(url),
  { message: 'must be a URL starting with "redis://" or "rediss://"', abort: true },
).superRefine((url, ctx) => {
  // What ioredis would read as the database or as options: refused here, not once connected.
  const problem = redisUrlProblem(url);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * The store fields of a worker's config schema, to spread into its
 * `z.strictObject`; `defaultPath` is the worker's SQLite file.
 */
export function storeConfigFields(defaultPath: string) {
  return {
    /** Where the data lives: `sqlite` (default), `memory` (lost on restart) or `redis`. */
    adapter: z.enum(["sqlite", "memory", "redis"]).default("sqlite"),
    /** The SQLite database file; relative paths resolve against the engine's base folder. */
    path: z.string().min(1).default(defaultPath),
    /** How often SQLite fsyncs: `normal` survives a killed engine, `full` survives power loss too. */
    synchronous: z.enum(["normal", "full"]).default("normal"),
    /** The Redis server, for the `redis` adapter. */
    url: redisUrl.default("redis://localhost:6379"),
  };
}

/** The parsed store fields. */
export type StoreConfig = z.output<z.ZodObject<ReturnType<typeof storeConfigFields>>>;

/** `path` as an absolute path, relative ones taken from `baseDir`. */
export function resolveStorePath(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Where a store keeps its data, as logs and `describe()` show it. */
export type StoreLocation = { path?: string; url?: string };

/**
 * Where the store `config` chooses keeps its data: the SQLite file (absolute),
 * the Redis URL with any password redacted, or nothing for memory.
 */
export function storeLocation(config: StoreConfig, baseDir: string): StoreLocation {
  switch (config.adapter) {
    case "sqlite":
      return { path: resolveStorePath(config.path, baseDir) };
    case "redis":
      return { url: redactUrl(config.url) };
    case "memory":
      return {};
  }
}

/** Where relative paths resolve and where adapters report trouble. */
export interface OpenStoreOptions {
  baseDir: string;
  log?: Logger;
}

/**
 * How a worker opens each of its adapters, given what the store fields say;
 * the worker adds its own settings (a size limit, say).
 */
export interface StoreOpeners<S> {
  memory(): S;
  /** `path` is absolute. */
  sqlite(file: { path: string; synchronous: "normal" | "full" }): S;
  redis(server: { url: string; log?: Logger }): Promise<S>;
}

/** The store `config` chooses, opened by `openers` and ready. */
export async function openChosenStore<S>(
  config: StoreConfig,
  options: OpenStoreOptions,
  openers: StoreOpeners<S>,
): Promise<S> {
  switch (config.adapter) {
    case "memory":
      return openers.memory();
    case "sqlite":
      return openers.sqlite({
        path: resolveStorePath(config.path, options.baseDir),
        synchronous: config.synchronous,
      });
    case "redis":
      return await openers.redis({
        url: config.url,
        ...(options.log === undefined ? {} : { log: options.log }),
      });
  }
}

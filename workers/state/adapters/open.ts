/**
 * Opens the adapter a parsed config names.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { Logger } from "../../../engine/api.ts";
import type { StateConfig } from "../config.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { StateStore } from "./store.ts";

/** Where relative paths resolve and where adapters report trouble. */
export interface OpenStoreOptions {
  baseDir: string;
  log?: Logger;
}

/** The store `config` asks for, opened and ready. */
export async function openStore(
  config: StateConfig,
  options: OpenStoreOptions,
): Promise<StateStore> {
  const maxValueBytes = config.max_value_bytes;
  switch (config.adapter) {
    case "memory":
      return new MemoryStore({ maxValueBytes });
    case "sqlite":
      return SqliteStore.open({
        path: resolveStatePath(config.path, options.baseDir),
        synchronous: config.synchronous,
        maxValueBytes,
      });
    case "redis":
      return await RedisStore.connect({
        url: config.url,
        maxValueBytes,
        ...(options.log === undefined ? {} : { log: options.log }),
      });
  }
}

/** `path` as an absolute path, relative ones taken from `baseDir`. */
export function resolveStatePath(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

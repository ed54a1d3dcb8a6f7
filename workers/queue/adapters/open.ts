/**
 * Opens the adapter a parsed config names.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { Logger } from "../../../engine/api.ts";
import type { QueueConfig } from "../config.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { QueueStore } from "./store.ts";

/** Where relative paths resolve and where adapters report trouble. */
export interface OpenStoreOptions {
  baseDir: string;
  log?: Logger;
}

/** The store `config` asks for, opened and ready. */
export async function openStore(
  config: QueueConfig,
  options: OpenStoreOptions,
): Promise<QueueStore> {
  switch (config.adapter) {
    case "memory":
      return new MemoryStore();
    case "sqlite":
      return SqliteStore.open({
        path: resolveQueuePath(config.path, options.baseDir),
        synchronous: config.synchronous,
      });
    case "redis":
      return await RedisStore.connect({
        url: config.url,
        ...(options.log === undefined ? {} : { log: options.log }),
      });
  }
}

/** `path` as an absolute path, relative ones taken from `baseDir`. */
export function resolveQueuePath(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

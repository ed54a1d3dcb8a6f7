/**
 * Opens the adapter a parsed config names.
 *
 * @module
 */

import { openChosenStore, type OpenStoreOptions } from "../../_shared/store_config.ts";
import type { QueueConfig } from "../config.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { QueueStore } from "./store.ts";

/** The store `config` asks for, opened and ready. */
export function openStore(config: QueueConfig, options: OpenStoreOptions): Promise<QueueStore> {
  return openChosenStore<QueueStore>(config, options, {
    memory: () => new MemoryStore(),
    sqlite: (file) =>
      SqliteStore.open({ ...file, ...(options.log === undefined ? {} : { log: options.log }) }),
    redis: (server) => RedisStore.connect(server),
  });
}

/**
 * Opens the adapter a parsed config names, each with the config's value and
 * list size limits.
 *
 * @module
 */

import { openChosenStore, type OpenStoreOptions } from "../../_shared/store_config.ts";
import type { StateConfig } from "../config.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { StateStore } from "./store.ts";

/** The store `config` asks for, opened and ready. */
export function openStore(config: StateConfig, options: OpenStoreOptions): Promise<StateStore> {
  const limits = { maxValueBytes: config.max_value_bytes, maxListBytes: config.max_list_bytes };
  return openChosenStore<StateStore>(config, options, {
    memory: () => new MemoryStore(limits),
    sqlite: (file) =>
      SqliteStore.open({
        ...file,
        ...limits,
        ...(options.log === undefined ? {} : { log: options.log }),
      }),
    redis: (server) => RedisStore.connect({ ...server, ...limits }),
  });
}

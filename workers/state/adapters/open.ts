/**
 * Opens the adapter a parsed config names, each with the config's value size
 * limit.
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
  const maxValueBytes = config.max_value_bytes;
  return openChosenStore<StateStore>(config, options, {
    memory: () => new MemoryStore({ maxValueBytes }),
    sqlite: (file) => SqliteStore.open({ ...file, maxValueBytes }),
    redis: (server) => RedisStore.connect({ ...server, maxValueBytes }),
  });
}

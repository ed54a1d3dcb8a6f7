/**
 * Test support: runs a table of cases against every queue store (memory,
 * SQLite in a temporary folder, a real Redis).
 *
 * @module
 */
import { join } from "node:path";
import {
  folderHarness,
  memoryHarness,
  redisHarness,
  type StoreBackend,
  type StoreCase,
  storeConformance,
} from "../../../tests/support/store_conformance.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { QueueStore } from "./store.ts";

export type QueueBackend = StoreBackend<QueueStore>;
export type QueueCase = StoreCase<QueueBackend, QueueStore>;

/** One test named `title` per store, each running `cases`; `folder` prefixes SQLite's folder. */
export function onEveryQueueStore(
  title: string,
  cases: Record<string, QueueCase>,
  folder: string,
): void {
  const suite = storeConformance(title, cases);
  suite(
    "memory",
    () => memoryHarness(() => ({ shared: false, open: () => Promise.resolve(new MemoryStore()) })),
  );
  suite("sqlite", () =>
    folderHarness(folder, (dir) => ({
      shared: true,
      open: () => Promise.resolve(SqliteStore.open({ path: join(dir, "queue.db") })),
    })));
  suite("redis", () =>
    redisHarness((url) => ({
      shared: true,
      open: () => RedisStore.connect({ url }),
    })));
}

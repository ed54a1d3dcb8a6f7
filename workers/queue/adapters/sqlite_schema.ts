/**
 * The SQLite queue adapter's tables (`sqlite.ts`): live messages and dead
 * letters, their indexes, and a message row as the adapter reads it.
 *
 * @module
 */
import type { DeadLetterCut, MessageMeta } from "./store.ts";

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS queue_names (name TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS queue_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    id TEXT NOT NULL,
    function_id TEXT NOT NULL,
    data TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    visible_at INTEGER NOT NULL,
    lease TEXT,
    enqueued_at INTEGER NOT NULL,
    last_error TEXT,
    traceparent TEXT,
    baggage TEXT
  );
  CREATE UNIQUE INDEX IF NOT EXISTS queue_messages_id ON queue_messages (queue, id);
  CREATE INDEX IF NOT EXISTS queue_messages_due ON queue_messages (queue, visible_at, seq);
  CREATE TABLE IF NOT EXISTS queue_dead_letters (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    id TEXT NOT NULL,
    function_id TEXT NOT NULL,
    data TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    enqueued_at INTEGER NOT NULL,
    failed_at INTEGER NOT NULL,
    last_error TEXT NOT NULL,
    traceparent TEXT,
    baggage TEXT
  );
  CREATE UNIQUE INDEX IF NOT EXISTS queue_dead_letters_id ON queue_dead_letters (queue, id);
  CREATE INDEX IF NOT EXISTS queue_dead_letters_order ON queue_dead_letters (queue, failed_at, seq);
  CREATE INDEX IF NOT EXISTS queue_dead_letters_page ON queue_dead_letters (queue, failed_at, id);`;

export const MESSAGE_COLUMNS =
  "id, function_id, data, attempts, enqueued_at, last_error, traceparent, baggage";

export interface MessageRow {
  id: string;
  function_id: string;
  data: string;
  attempts: number;
  enqueued_at: number;
  last_error: string | null;
  traceparent: string | null;
  baggage: string | null;
}

/** The `failed_at <` bound of `cut`: past every time when it has none. */
export function cutOf(cut: DeadLetterCut): number {
  return cut.failedBefore ?? Number.MAX_SAFE_INTEGER;
}

export function toMeta(queue: string, row: MessageRow): MessageMeta {
  const meta: MessageMeta = {
    id: row.id,
    queue,
    functionId: row.function_id,
    enqueuedAt: Number(row.enqueued_at),
    attempts: Number(row.attempts),
  };
  if (row.last_error !== null) meta.lastError = JSON.parse(row.last_error);
  if (row.traceparent !== null) meta.traceparent = row.traceparent;
  if (row.baggage !== null) meta.baggage = row.baggage;
  return meta;
}

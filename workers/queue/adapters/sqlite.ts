/**
 * The SQLite queue adapter (`node:sqlite`), the default. Live messages and
 * dead letters are two tables; statements are prepared once at open.
 *
 * Durability: WAL mode, as the state worker. With `synchronous: "normal"` (the
 * default) a committed `enqueue` has reached the operating system before it
 * answers, so an accepted message survives the engine being killed (even with
 * `kill -9`); `full` fsyncs every commit and survives power loss too.
 *
 * Atomicity: `node:sqlite` is synchronous, so nothing in this process runs
 * between a claim's read and its write; `BEGIN IMMEDIATE` keeps other
 * processes sharing the file out too.
 *
 * Group commit: `enqueue` and `ack` calls arriving in the same turn of the
 * event loop are written in one transaction (flushed by `setImmediate`, after
 * the pending I/O), and each answers once that transaction committed. Any
 * other call writes the pending ones first, so calls keep their order.
 *
 * @module
 */

import { parseExact } from "../../../engine/protocol/exact_json.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { setImmediate } from "node:timers";
import type { ErrorBody, Logger } from "../../../engine/api.ts";
import {
  type DatabaseFile,
  openDatabase,
  type Transaction,
  writeTransaction,
} from "../../_shared/sqlite.ts";
import type {
  ClaimedMessage,
  DeadLetterCut,
  DeadLetterList,
  DeadLetterPage,
  NewMessage,
  QueueCounts,
  QueueStore,
  Reschedule,
} from "./store.ts";
import { cutOf, MESSAGE_COLUMNS, type MessageRow, SCHEMA, toMeta } from "./sqlite_schema.ts";
import {
  QueueOutageLog as SqliteOutageLog,
  watchedTransaction,
} from "../../_shared/sqlite_outage.ts";

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions {
  /** The database file; its folder is created when missing. */
  path: string;
  /** How often SQLite fsyncs: see the module documentation. Default `normal`. */
  synchronous?: "normal" | "full";
  /**
   * Where a write outage (disk full, the file deleted) is logged, a few
   * lines however long it lasts (see {@link SqliteOutageLog}); its failures
   * then come marked as logged. Without it, nothing is logged here.
   */
  log?: Logger;
}

type Statements =
  | "name"
  | "exists"
  | "insert"
  | "due"
  | "dueSkipping"
  | "lease"
  | "ack"
  | "reschedule"
  | "get"
  | "buryInsert"
  | "remove"
  | "nextDue"
  | "names"
  | "liveAfter"
  | "held"
  | "forget"
  | "live"
  | "inFlight"
  | "deadCount"
  | "deadList"
  | "deadListAfter"
  | "deadListNewest"
  | "deadListBefore"
  | "deadOne"
  | "deadAll"
  | "deadRemove"
  | "deadRemoveAll";

/** A {@link QueueStore} in a SQLite file. */
export class SqliteStore implements QueueStore {
  readonly adapter = "sqlite";
  readonly claimSkips = true;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #sql: Record<Statements, StatementSync>;
  readonly #transaction: Transaction;
  /** Runs a body of reads on one snapshot of the file. */
  readonly #read: Transaction;
  readonly #outages: SqliteOutageLog | undefined;
  readonly #leasePrefix = crypto.randomUUID();
  #leases = 0;
  /** Writes waiting for the next group commit. */
  #pending: PendingWrite[] = [];
  #flushScheduled = false;

  private constructor(db: DatabaseSync, file: DatabaseFile, log: Logger | undefined) {
    this.#db = db;
    this.path = file.path;
    const p = (sql: string) => db.prepare(sql);
    this.#outages = log === undefined
      ? undefined
      : new SqliteOutageLog({ path: file.path, log, checkFile: () => file.check() });
    const page = (where: string, direction: "ASC" | "DESC") =>
      p(
        `SELECT ${MESSAGE_COLUMNS}, failed_at FROM queue_dead_letters WHERE queue = ? ${where} ` +
          `ORDER BY failed_at ${direction}, id ${direction} LIMIT ?`,
      );
    const transaction = writeTransaction(db, file);
    const totalChanges = p("SELECT total_changes() AS n");
    const changes = () => Number((totalChanges.get() as { n: number }).n);
    this.#transaction = this.#outages === undefined
      ? transaction
      : watchedTransaction(transaction, this.#outages, changes);
    this.#read = readTransaction(db);
    this.#sql = {
      name: p("INSERT OR IGNORE INTO queue_names (name) VALUES (?)"),
      exists: p(
        "SELECT 1 FROM queue_messages WHERE queue = ? AND id = ? " +
          "UNION ALL SELECT 1 FROM queue_dead_letters WHERE queue = ? AND id = ?",
      ),
      insert: p(
        "INSERT INTO queue_messages (queue, id, function_id, data, attempts, visible_at, enqueued_at, " +
          "last_error, traceparent, baggage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      due: p(
        `SELECT ${MESSAGE_COLUMNS} FROM queue_messages WHERE queue = ? AND visible_at <= ? ` +
          "ORDER BY visible_at, seq LIMIT ?",
      ),
      // The skipped functions are a JSON array: one statement whatever their number.
      dueSkipping: p(
        `SELECT ${MESSAGE_COLUMNS} FROM queue_messages WHERE queue = ? AND visible_at <= ? ` +
          "AND function_id NOT IN (SELECT value FROM json_each(?)) ORDER BY visible_at, seq LIMIT ?",
      ),
      lease: p("UPDATE queue_messages SET lease = ?, visible_at = ? WHERE queue = ? AND id = ?"),
      ack: p("DELETE FROM queue_messages WHERE queue = ? AND id = ? AND lease = ?"),
      reschedule: p(
        "UPDATE queue_messages SET lease = NULL, visible_at = ?, attempts = ?, last_error = ? " +
          "WHERE queue = ? AND id = ? AND lease = ?",
      ),
      get: p(
        `SELECT ${MESSAGE_COLUMNS} FROM queue_messages WHERE queue = ? AND id = ? AND lease = ?`,
      ),
      buryInsert: p(
        "INSERT INTO queue_dead_letters (queue, id, function_id, data, attempts, enqueued_at, " +
          "failed_at, last_error, traceparent, baggage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      remove: p("DELETE FROM queue_messages WHERE queue = ? AND id = ?"),
      nextDue: p("SELECT MIN(visible_at) AS next FROM queue_messages WHERE queue = ?"),
      names: p("SELECT name FROM queue_names ORDER BY name"),
      // One index seek per queue holding live messages, however many messages or names there are.
      liveAfter: p(
        "SELECT queue FROM queue_messages WHERE queue > ? ORDER BY queue LIMIT 1",
      ),
      held: p(
        "SELECT EXISTS (SELECT 1 FROM queue_messages WHERE queue = ?) OR " +
          "EXISTS (SELECT 1 FROM queue_dead_letters WHERE queue = ?) AS held",
      ),
      forget: p("DELETE FROM queue_names WHERE name = ?"),
      live: p("SELECT COUNT(*) AS n FROM queue_messages WHERE queue = ?"),
      inFlight: p(
        "SELECT COUNT(*) AS n FROM queue_messages WHERE queue = ? AND lease IS NOT NULL AND visible_at > ?",
      ),
      deadCount: p("SELECT COUNT(*) AS n FROM queue_dead_letters WHERE queue = ?"),
      // Failure order: failed_at, then id (BINARY: the byte order of UTF-8, as Redis).
      deadList: page("", "ASC"),
      deadListAfter: page("AND (failed_at, id) > (?, ?)", "ASC"),
      deadListNewest: page("", "DESC"),
      deadListBefore: page("AND (failed_at, id) < (?, ?)", "DESC"),
      deadOne: p(
        `SELECT ${MESSAGE_COLUMNS} FROM queue_dead_letters WHERE queue = ? AND id = ?`,
      ),
      deadAll: p(
        `SELECT ${MESSAGE_COLUMNS} FROM queue_dead_letters WHERE queue = ? AND failed_at < ? ` +
          "ORDER BY seq",
      ),
      deadRemove: p("DELETE FROM queue_dead_letters WHERE queue = ? AND id = ?"),
      deadRemoveAll: p("DELETE FROM queue_dead_letters WHERE queue = ? AND failed_at < ?"),
    };
  }

  /** Opens (creating when missing) the database at `options.path`. */
  static open(options: SqliteStoreOptions): SqliteStore {
    const { log, ...file } = options;
    return openDatabase(
      { ...file, schema: SCHEMA, label: "queue" },
      (db, opened) => new SqliteStore(db, opened, log),
    );
  }

  enqueue(m: NewMessage): Promise<boolean> {
    return this.#defer(() => {
      // Every time (a primary key lookup): another engine sharing the file may have forgotten it.
      this.#sql.name.run(m.queue);
      if (this.#sql.exists.get(m.queue, m.id, m.queue, m.id) !== undefined) return false;
      this.#sql.insert.run(
        m.queue,
        m.id,
        m.functionId,
        m.dataText,
        0,
        m.enqueuedAt,
        m.enqueuedAt,
        null,
        m.traceparent ?? null,
        m.baggage ?? null,
      );
      return true;
    });
  }

  claim(
    queue: string,
    now: number,
    limit: number,
    leaseUntil: number,
    skip: readonly string[] = [],
  ): ClaimedMessage[] {
    if (limit <= 0) return [];
    this.#flush();
    return this.#transaction(() => {
      const rows =
        (skip.length === 0 ? this.#sql.due.all(queue, now, limit) : this.#sql.dueSkipping.all(
          queue,
          now,
          JSON.stringify(skip),
          limit,
        )) as unknown as MessageRow[];
      return rows.map((row) => {
        const lease = `${this.#leasePrefix}-${++this.#leases}`;
        this.#sql.lease.run(lease, leaseUntil, queue, row.id);
        return { ...toMeta(queue, row), data: parseExact(row.data), lease };
      });
    });
  }

  ack(queue: string, id: string, lease: string): Promise<boolean> {
    return this.#defer(() => Number(this.#sql.ack.run(queue, id, lease).changes) > 0);
  }

  reschedule(queue: string, id: string, lease: string, change: Reschedule): boolean {
    this.#flush();
    const error = change.lastError === undefined ? null : JSON.stringify(change.lastError);
    const result = this.#transaction(() =>
      this.#sql.reschedule.run(change.visibleAt, change.attempts, error, queue, id, lease)
    );
    return Number(result.changes) > 0;
  }

  bury(
    queue: string,
    id: string,
    lease: string,
    end: { attempts: number; lastError: ErrorBody; failedAt: number },
  ): boolean {
    this.#flush();
    return this.#transaction(() => {
      const row = this.#sql.get.get(queue, id, lease) as MessageRow | undefined;
      if (row === undefined) return false;
      this.#sql.remove.run(queue, id);
      this.#sql.buryInsert.run(
        queue,
        id,
        row.function_id,
        row.data,
        end.attempts,
        row.enqueued_at,
        end.failedAt,
        JSON.stringify(end.lastError),
        row.traceparent,
        row.baggage,
      );
      return true;
    });
  }

  nextDue(queue: string): number | undefined {
    this.#flush();
    const row = this.#sql.nextDue.get(queue) as { next: number | null } | undefined;
    return row?.next ?? undefined;
  }

  queues(): string[] {
    this.#flush();
    return (this.#sql.names.all() as { name: string }[]).map((row) => row.name);
  }

  liveQueues(): string[] {
    this.#flush();
    return this.#read(() => {
      const names: string[] = [];
      for (let last = "";;) {
        const row = this.#sql.liveAfter.get(last) as { queue: string } | undefined;
        if (row === undefined) return names;
        names.push(last = row.queue);
      }
    });
  }

  forget(queue: string): boolean {
    this.#flush();
    return this.#transaction(() => {
      if (Number((this.#sql.held.get(queue, queue) as { held: number }).held) !== 0) return false;
      this.#sql.forget.run(queue);
      return true;
    });
  }

  counts(queue: string, now: number): QueueCounts {
    this.#flush();
    const count = (statement: StatementSync, ...args: (string | number)[]) =>
      Number((statement.get(...args) as { n: number }).n);
    const live = count(this.#sql.live, queue);
    const inFlight = count(this.#sql.inFlight, queue, now);
    return { depth: live - inFlight, inFlight, deadLetters: count(this.#sql.deadCount, queue) };
  }

  deadLetters(queue: string, limit: number, page: DeadLetterPage = {}): DeadLetterList {
    this.#flush();
    const { after } = page;
    const sql = this.#sql;
    const statement = page.newestFirst
      ? (after === undefined ? sql.deadListNewest : sql.deadListBefore)
      : (after === undefined ? sql.deadList : sql.deadListAfter);
    const args = after === undefined ? [queue, limit] : [queue, after.failedAt, after.id, limit];
    // One read transaction: another process sharing the file cannot write between the two reads.
    type Row = MessageRow & { failed_at: number };
    const [rows, total] = this.#read((): [Row[], number] => [
      statement.all(...args) as unknown as Row[],
      Number((sql.deadCount.get(queue) as { n: number }).n),
    ]);
    const letters = rows.map((row) => {
      const meta = toMeta(queue, row);
      return {
        ...meta,
        data: parseExact(row.data),
        lastError: meta.lastError ?? { code: "UNKNOWN", message: "No error recorded" },
        failedAt: row.failed_at,
      };
    });
    return { letters, total };
  }

  redrive(queue: string, id: string | undefined, now: number, cut: DeadLetterCut = {}): number {
    this.#flush();
    const before = cutOf(cut);
    return this.#transaction(() => {
      const rows = (id === undefined
        ? this.#sql.deadAll.all(queue, before)
        : this.#sql.deadOne.all(queue, id)) as unknown as MessageRow[];
      for (const row of rows) {
        this.#sql.insert.run(
          queue,
          row.id,
          row.function_id,
          row.data,
          0,
          now,
          row.enqueued_at,
          null,
          row.traceparent,
          row.baggage,
        );
      }
      if (id === undefined) {
        this.#sql.deadRemoveAll.run(queue, before);
      } else this.#sql.deadRemove.run(queue, id);
      return rows.length;
    });
  }

  discard(queue: string, id: string): boolean {
    this.#flush();
    return Number(this.#transaction(() => this.#sql.deadRemove.run(queue, id)).changes) > 0;
  }

  discardAll(queue: string, cut: DeadLetterCut = {}): number {
    this.#flush();
    return Number(this.#transaction(() => this.#sql.deadRemoveAll.run(queue, cutOf(cut))).changes);
  }

  close(): void {
    if (!this.#db.isOpen) return;
    this.#flush();
    this.#db.close();
  }

  /** Runs `write` in the next group commit; resolves with its result once committed. */
  #defer<T>(write: () => T): Promise<T> {
    if (!this.#db.isOpen) return Promise.reject(new Error("The queue database is closed"));
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    this.#pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
    return promise;
  }

  /** Commits the pending writes in one transaction, then settles each. */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.#transaction(() => {
        for (const { write } of batch) {
          // A failing statement fails its own write; the others still commit.
          try {
            outcomes.push({ ok: true, value: write() });
          } catch (error) {
            outcomes.push({ ok: false, error: this.#outages?.failed(error) ?? error });
          }
        }
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }
}

interface PendingWrite {
  write(): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * A {@link Transaction} of reads only (`BEGIN`, deferred): its reads see one
 * snapshot of the file, and it takes no write lock.
 */
function readTransaction(db: DatabaseSync): Transaction {
  const begin = db.prepare("BEGIN");
  const commit = db.prepare("COMMIT");
  return (body) => {
    begin.run();
    try {
      return body();
    } finally {
      commit.run();
    }
  };
}

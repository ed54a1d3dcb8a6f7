/**
 * The SQLite state adapter (`node:sqlite`), the default. One table keyed by
 * `(scope, key)` holds each value's JSON text. Statements are prepared once at
 * open; a call runs a handful of them and no schema work.
 *
 * Durability: the database runs in WAL mode. With `synchronous: "normal"` (the
 * default) a commit has written its WAL frames to the operating system before
 * `COMMIT` returns, and only the fsync waits for the next checkpoint, so an
 * answered write survives the engine being killed (even with `kill -9`); an
 * operating-system crash or power loss may lose the last commits but never
 * corrupts the file. `synchronous: "full"` fsyncs every commit, surviving power
 * loss too, at roughly ten times the cost of a write.
 *
 * Atomicity: `node:sqlite` is synchronous, so inside this process nothing runs
 * between a read and its write; `BEGIN IMMEDIATE` takes the write lock first,
 * so another process sharing the file cannot slip in either.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Logger } from "../../../engine/api.ts";
import {
  type DatabaseFile,
  openDatabase,
  type Transaction,
  writeTransaction,
} from "../../_shared/sqlite.ts";
import { SqliteOutageLog, watchedTransaction } from "../../_shared/sqlite_outage.ts";
import type { UpdateOp } from "../update_ops.ts";
import { compareKeys, decodeStored, encodeValue, type JsonValue } from "../values.ts";
import { DEFAULT_MAX_LIST_BYTES, listBound } from "../list_bound.ts";
import {
  type DeleteOutcome,
  planUpdate,
  type SetOutcome,
  type StateEntry,
  type StateStore,
  type StoreOptions,
  type UpdateOutcome,
} from "./store.ts";

/** Options of {@link SqliteStore.open}. */
export interface SqliteStoreOptions extends StoreOptions {
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

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS state_entries (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (scope, key)
  ) WITHOUT ROWID`;

/** A {@link StateStore} in a SQLite file. */
export class SqliteStore implements StateStore {
  readonly adapter = "sqlite";
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #maxValueBytes: number;
  readonly #maxListBytes: number;
  readonly #sql: Record<"get" | "upsert" | "remove" | "list" | "groups", StatementSync>;
  readonly #transaction: Transaction;

  private constructor(db: DatabaseSync, file: DatabaseFile, options: SqliteStoreOptions) {
    this.#db = db;
    this.path = options.path;
    this.#maxValueBytes = options.maxValueBytes;
    this.#maxListBytes = options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
    // Each write reads what it changes inside its transaction and touches nothing else, so a
    // run rolled back for a full disk can run again once the WAL gave its room back.
    const transaction = writeTransaction(db, file, { retryWhenFull: true });
    const { log } = options;
    if (log === undefined) this.#transaction = transaction;
    else {
      const outages = new SqliteOutageLog({
        path: file.path,
        label: "state",
        consequence: "state::set, update and delete fail meanwhile; reads still answer",
        log,
        checkFile: () => file.check(),
      });
      const totalChanges = db.prepare("SELECT total_changes() AS n");
      this.#transaction = watchedTransaction(
        transaction,
        outages,
        () => Number((totalChanges.get() as { n: number }).n),
      );
    }
    this.#sql = {
      get: db.prepare("SELECT value FROM state_entries WHERE scope = ? AND key = ?"),
      upsert: db.prepare(
        "INSERT INTO state_entries (scope, key, value) VALUES (?, ?, ?) " +
          "ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value",
      ),
      remove: db.prepare("DELETE FROM state_entries WHERE scope = ? AND key = ?"),
      list: db.prepare("SELECT key, value FROM state_entries WHERE scope = ?"),
      groups: db.prepare("SELECT DISTINCT scope FROM state_entries"),
    };
  }

  /** Opens (creating when missing) the database at `options.path`. */
  static open(options: SqliteStoreOptions): SqliteStore {
    return openDatabase(
      { ...options, schema: SCHEMA, label: "state" },
      (db, file) => new SqliteStore(db, file, options),
    );
  }

  get(scope: string, key: string): JsonValue | undefined {
    const text = this.#read(scope, key);
    return text === undefined ? undefined : decodeStored(text);
  }

  set(scope: string, key: string, value: JsonValue): SetOutcome {
    const text = encodeValue(value, this.#maxValueBytes, { scope, key });
    const old = this.#transaction(() => {
      const old = this.#read(scope, key);
      this.#sql.upsert.run(scope, key, text);
      return old;
    });
    return old === undefined
      ? { created: true, oldValue: null }
      : { created: false, oldValue: decodeStored(old) };
  }

  delete(scope: string, key: string): DeleteOutcome {
    const old = this.#transaction(() => {
      const old = this.#read(scope, key);
      if (old !== undefined) this.#sql.remove.run(scope, key);
      return old;
    });
    return old === undefined
      ? { existed: false, oldValue: null }
      : { existed: true, oldValue: decodeStored(old) };
  }

  update(scope: string, key: string, ops: readonly UpdateOp[]): UpdateOutcome {
    return this.#transaction(() => {
      const plan = planUpdate(this.#read(scope, key), ops, {
        scope,
        key,
        maxValueBytes: this.#maxValueBytes,
      });
      if (plan.text !== undefined) this.#sql.upsert.run(scope, key, plan.text);
      return plan.outcome;
    });
  }

  list(scope: string): StateEntry[] {
    // Row by row, counted: a scope over the bound is refused before the rest is read.
    const count = listBound(scope, this.#maxListBytes);
    const rows: { key: string; value: string }[] = [];
    for (const row of this.#sql.list.iterate(scope) as Iterable<{ key: string; value: string }>) {
      count(row.key, row.value);
      rows.push(row);
    }
    rows.sort((a, b) => compareKeys(a.key, b.key));
    return rows.map((row) => ({ key: row.key, value: decodeStored(row.value) }));
  }

  listGroups(): string[] {
    const rows = this.#sql.groups.all() as { scope: string }[];
    return rows.map((row) => row.scope).sort(compareKeys);
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #read(scope: string, key: string): string | undefined {
    const row = this.#sql.get.get(scope, key) as { value: string } | undefined;
    return row?.value;
  }
}

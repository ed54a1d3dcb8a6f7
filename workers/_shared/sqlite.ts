/**
 * Opening a SQLite database (`node:sqlite`) the way every SQLite adapter of
 * the built-in workers does, and running bodies in write transactions. Each
 * adapter's module documentation says what the settings mean for its data.
 *
 * @module
 */

import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type DatabaseFile, databaseFile } from "./sqlite_file.ts";

export type { DatabaseFile } from "./sqlite_file.ts";

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** The database file; its folder is created when missing. */
  path: string;
  /** How often SQLite fsyncs in WAL mode. Default `normal`. */
  synchronous?: "normal" | "full";
  /** The statements creating the adapter's tables when missing. */
  schema: string;
  /** What the database holds, for the error message: `queue`, `state`. */
  label: string;
}

/**
 * Opens (creating when missing) the database at `options.path` in WAL mode
 * with the schema applied, and hands it to `use` with the {@link DatabaseFile}
 * it was opened from. When anything up to and including `use` throws, the
 * database is closed and the error names the file.
 */
export function openDatabase<T>(
  options: OpenDatabaseOptions,
  use: (db: DatabaseSync, file: DatabaseFile) => T,
): T {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    db = new DatabaseSync(options.path);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    // Another process holding the write lock is waited for, not an error at once.
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(options.schema);
    return use(db, databaseFile(options.path, options.label));
  } catch (error) {
    db?.close();
    throw new Error(
      `Cannot open the ${options.label} database "${options.path}": ${
        error instanceof Error ? error.message : String(error)
      }${
        isFolder(options.path)
          ? ": it is a folder, not a file"
          : whyNotWritable(dirname(options.path))
      }`,
      { cause: error },
    );
  }
}

/** Whether `path` names a folder (SQLite only says "unable to open database file"). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why SQLite cannot write in `folder` (it only says "unable to open database
 * file"): `: the folder "…" is not writable: EROFS: read-only file system, …`,
 * or `""` when it is writable.
 */
function whyNotWritable(folder: string): string {
  try {
    accessSync(folder, constants.W_OK);
    return "";
  } catch (error) {
    return `: the folder "${folder}" is not writable: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
}

/** Runs `body` in a write transaction: committed when it returns, rolled back when it throws. */
export type Transaction = <T>(body: () => T) => T;

/** Options of {@link writeTransaction}. */
export interface WriteTransactionOptions {
  /**
   * Run the body a second time when it failed for a full disk and the WAL
   * copied into the database right after gave the disk back the WAL's room
   * (see {@link walReturner}): the failed run was rolled back, so the body
   * must do all its work, its reads included, inside the transaction, and
   * touch nothing outside it (engine-state's writes). Not for a body that
   * catches its statements' failures or keeps state across runs (the
   * queue's group commit). Default `false`.
   */
  retryWhenFull?: boolean;
}

/**
 * A {@link Transaction} over `db`, its statements prepared once. It begins
 * with `BEGIN IMMEDIATE`, taking the write lock first, so another process
 * sharing the file cannot write between a body's reads and its writes. With
 * `file`, it first checks that the file is still the one open (see
 * {@link DatabaseFile.check}), and SQLite's failures name the file.
 */
export function writeTransaction(
  db: DatabaseSync,
  file?: DatabaseFile,
  options: WriteTransactionOptions = {},
): Transaction {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const wal = walReturner(db);
  return (body) => {
    for (let run = 1;; run++) {
      wal.beforeWrite();
      try {
        file?.check();
        begin.run();
      } catch (error) {
        wal.failed(error);
        throw file?.named(error) ?? error;
      }
      try {
        const result = body();
        commit.run();
        wal.wrote();
        return result;
      } catch (error) {
        if (db.isTransaction) rollback.run();
        const roomBack = wal.failed(error);
        if (!(roomBack && options.retryWhenFull && run === 1)) throw file?.named(error) ?? error;
      }
    }
  };
}

/** The WAL's checkpoint size, in pages, once the disk was found full (SQLite's default: 1000). */
const NEARLY_FULL_CHECKPOINT_PAGES = 16;

/**
 * Gives the space of the write-ahead log back after the disk was found full.
 * SQLite copies the WAL into the database only once it holds 1000 pages
 * (4 MiB): on a disk with less room than that, the WAL took every byte freed
 * and writes failed again, for good, with the data itself small. After a
 * write failed for a full disk, a `wal_checkpoint(TRUNCATE)` copies the WAL
 * into the database and empties it; it fails while the database file has no
 * room to grow into, so it is tried again before each write until one works,
 * ahead of the write, which would otherwise take the freed space first. From
 * then on (until the engine restarts) the WAL is copied back every
 * {@link NEARLY_FULL_CHECKPOINT_PAGES} pages, so it reuses its own few pages
 * instead of growing into what the disk has left.
 *
 * `failed` says whether that gave room back for the write that just failed:
 * the disk was full, no checkpoint ran right before the write (else the WAL
 * held only that write's frames, and the same write would fail the same
 * way), and the one after it completed (not busy with another process's
 * reader).
 */
function walReturner(db: DatabaseSync): {
  beforeWrite(): void;
  failed(error: unknown): boolean;
  wrote(): void;
} {
  const checkpoint = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)");
  let full = false;
  let nearlyFull = false;
  /** Whether the checkpoint completed: the WAL is now empty. */
  const giveBack = () => {
    try {
      return (checkpoint.get() as { busy: number } | undefined)?.busy === 0;
    } catch {
      // Still no room for the database to grow: the next write tries again.
      return false;
    }
  };
  return {
    beforeWrite() {
      if (full) giveBack();
    },
    failed(error) {
      if (!(error instanceof Error && /database or disk is full/.test(error.message))) return false;
      const first = !full;
      full = true;
      if (!nearlyFull) {
        nearlyFull = true;
        db.exec(`PRAGMA wal_autocheckpoint = ${NEARLY_FULL_CHECKPOINT_PAGES}`);
      }
      return !db.isTransaction && giveBack() && first;
    },
    wrote() {
      full = false;
    },
  };
}

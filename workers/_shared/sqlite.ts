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

/**
 * A {@link Transaction} over `db`, its statements prepared once. It begins
 * with `BEGIN IMMEDIATE`, taking the write lock first, so another process
 * sharing the file cannot write between a body's reads and its writes. With
 * `file`, it first checks that the file is still the one open (see
 * {@link DatabaseFile.check}), and SQLite's failures name the file.
 */
export function writeTransaction(db: DatabaseSync, file?: DatabaseFile): Transaction {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  return (body) => {
    try {
      file?.check();
      begin.run();
    } catch (error) {
      throw file?.named(error) ?? error;
    }
    try {
      const result = body();
      commit.run();
      return result;
    } catch (error) {
      if (db.isTransaction) rollback.run();
      throw file?.named(error) ?? error;
    }
  };
}

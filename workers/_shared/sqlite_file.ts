/**
 * The file a SQLite database was opened from, and whether it is still there.
 * SQLite keeps writing to the file it opened when that file is deleted or
 * replaced (`rm`, a restore that renames another file over it): every write
 * then succeeds and is lost when the engine stops. Checking before each write
 * turns that into an error naming the file.
 *
 * @module
 */

/** The file of an open database. */
export interface DatabaseFile {
  readonly path: string;
  /**
   * Throws when the file at `path` is no longer the one opened (deleted, or
   * another file in its place): `the state database "/data/state.db" was
   * deleted while the engine had it open: …`. One `stat` of the path.
   */
  check(): void;
  /**
   * `error` as a SQLite failure naming the file (`database or disk is full
   * (SQLite database "/data/state.db")`); any other error as it is.
   */
  named(error: unknown): unknown;
}

/** The {@link DatabaseFile} at `path`, as it is now; `label` says what it holds (`state`). */
export function databaseFile(path: string, label: string): DatabaseFile {
  const opened = Deno.statSync(path);
  const what = `the ${label} database "${path}"`;
  const refused = "writes are refused, as they would be lost with it";
  return {
    path,
    check() {
      let now: Deno.FileInfo;
      try {
        now = Deno.statSync(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        throw new Error(
          `${what} was deleted while the engine had it open: ${refused}; restart the engine to create a new one`,
        );
      }
      if (now.ino !== opened.ino || now.dev !== opened.dev) {
        throw new Error(
          `${what} was replaced by another file while the engine had it open: ${refused}; restart the engine to open the file now there`,
        );
      }
    },
    named(error) {
      if (!isSqliteError(error) || error.message.includes(path)) return error;
      return new Error(`${error.message} (SQLite database "${path}")`, { cause: error });
    },
  };
}

/** Whether `error` is one `node:sqlite` threw. */
function isSqliteError(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === "ERR_SQLITE_ERROR";
}

/**
 * The log of a SQLite queue database that refuses writes (the disk full, the
 * file deleted or replaced under the engine), bounded however long it lasts:
 * one error line when writes start failing, naming the file and the cause,
 * then at most one reminder per {@link REMINDER_MS} with the count of calls
 * failed since, and one line when a write works again. The dispatcher and
 * the functions' guard see its failures marked as a logged outage (see
 * `store_outage.ts`), so they count them instead of logging a line per
 * claim of every queue at every poll.
 *
 * Like the Redis outage log it keeps no timer: reminders are written when a
 * write fails, which the dispatcher's polls make happen about once a second
 * while messages wait.
 *
 * @module
 */

import type { Logger } from "../../../engine/api.ts";
import { REMINDER_MS } from "../../_shared/redis_outage.ts";
import { type LoggedOutage, markLoggedOutage } from "../../_shared/store_outage.ts";

/**
 * SQLite's messages for a database that cannot take a write, whatever the
 * statement (`sqlite3_errstr` of SQLITE_FULL, IOERR, READONLY, BUSY,
 * CANTOPEN, NOTADB, CORRUPT): the store's trouble, not the call's.
 */
const STORAGE_FAILURES =
  /database or disk is full|disk I\/O error|readonly database|database is locked|unable to open database file|file is not a database|database disk image is malformed/;

/** Options of {@link SqliteOutageLog}. */
export interface SqliteOutageLogOptions {
  /** The database file. */
  path: string;
  log: Logger;
  /** Whether the file is gone (deleted or replaced); throws the error saying so. */
  checkFile(): void;
  /** Default {@link REMINDER_MS}. */
  reminderMs?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

interface Outage {
  since: number;
  cause: string;
  /** Calls failed since the outage began. */
  failed: number;
  /** When the last line about it was written, and the count of failed calls then. */
  toldAt: number;
  failedWhenTold: number;
}

/** The write outages of one SQLite queue database, logged in a bounded number of lines. */
export class SqliteOutageLog implements LoggedOutage {
  readonly #o: SqliteOutageLogOptions;
  readonly #now: () => number;
  #outage: Outage | undefined;

  constructor(options: SqliteOutageLogOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether writes fail as far as this log knows. */
  get down(): boolean {
    return this.#outage !== undefined;
  }

  /**
   * A write failed with `error`. A failure of the storage (see
   * {@link STORAGE_FAILURES}, or the file gone) starts an outage, or is a
   * reminder when one is due, and comes back marked as logged; any other
   * error comes back as it is, for its caller to log.
   */
  failed(error: unknown): unknown {
    if (!(error instanceof Error)) return error;
    let cause: string | undefined;
    if (STORAGE_FAILURES.test(error.message)) cause = error.message;
    else {
      try {
        this.#o.checkFile();
      } catch (gone) {
        cause = gone instanceof Error ? gone.message : String(gone);
      }
    }
    if (cause === undefined) return error;
    const { path } = this.#o;
    this.#unwritable(cause.includes(path) ? cause : `${cause} (SQLite database "${path}")`);
    return markLoggedOutage(error, this);
  }

  /** A call failed during the outage (the functions' guard counts them). */
  countFailedCall(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    outage.failed++;
    this.#remind(outage);
  }

  /** A write committed changes: one line when writes were failing. */
  wrote(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    this.#o.log.info(
      `Writes to the queue database "${this.#o.path}" work again after ${
        seconds(this.#now() - outage.since)
      }: ${calls(outage.failed)} failed meanwhile`,
      { path: this.#o.path, failed_calls: outage.failed },
    );
  }

  #unwritable(cause: string): void {
    const outage = this.#outage;
    if (outage !== undefined) {
      outage.cause = cause;
      this.#remind(outage);
      return;
    }
    const now = this.#now();
    this.#outage = { since: now, cause, failed: 0, toldAt: now, failedWhenTold: 0 };
    this.#o.log.error(
      `Writes to the queue database fail: ${cause}: enqueues fail and no message is delivered meanwhile`,
      { path: this.#o.path },
    );
  }

  #remind(outage: Outage): void {
    const now = this.#now();
    if (now - outage.toldAt < (this.#o.reminderMs ?? REMINDER_MS)) return;
    const failed = outage.failed - outage.failedWhenTold;
    this.#o.log.warn(
      `Writes to the queue database still fail after ${seconds(now - outage.since)}: ${
        calls(failed)
      } failed in the last ${seconds(now - outage.toldAt)}: ${outage.cause}`,
      { path: this.#o.path, failed_calls: failed },
    );
    outage.toldAt = now;
    outage.failedWhenTold = outage.failed;
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function calls(n: number): string {
  return n === 1 ? "1 call" : `${n} calls`;
}

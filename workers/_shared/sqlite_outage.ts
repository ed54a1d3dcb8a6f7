/**
 * The log of a SQLite database that refuses writes (the disk full, the file
 * deleted or replaced under the engine), bounded however long it lasts: one
 * error line when writes start failing, naming the file and the cause, then
 * at most one reminder per {@link REMINDER_MS} with the count of calls
 * failed since, and one line when a write works again. The code that would
 * log each failed call or poll (`storeGuard`, the queue's dispatcher) sees
 * its failures marked as a logged outage (see `store_outage.ts`) and counts
 * them instead.
 *
 * A disk that is nearly full lets some writes through and not others. An
 * outage that starts within {@link FLAP_MS} of the end of the previous one
 * is logged as usual, but ends only once writes have worked for
 * {@link SETTLE_MS} without a failure: the flips in between are counted in
 * the reminders, not logged one by one.
 *
 * Like the Redis outage log it keeps no timer: reminders are written when a
 * write fails, the end line when a write works.
 *
 * @module
 */

import type { Logger } from "../../engine/api.ts";
import { REMINDER_MS } from "./redis_outage.ts";
import type { Transaction } from "./sqlite.ts";
import { type LoggedOutage, markLoggedOutage } from "./store_outage.ts";

/** An outage starting this soon after the previous one ended is the same trouble again. */
export const FLAP_MS = 60_000;
/** How long writes must work, after such a relapse, for its outage to end. */
export const SETTLE_MS = 30_000;

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
  /** What the database holds, in the lines: `state` gives `Writes to the state database …`. */
  label: string;
  /** What the outage means for callers, ending the first line: `enqueues fail …`. */
  consequence: string;
  log: Logger;
  /** Whether the file is gone (deleted or replaced); throws the error saying so. */
  checkFile(): void;
  /** Default {@link REMINDER_MS}. */
  reminderMs?: number;
  /** Default {@link FLAP_MS}. */
  flapMs?: number;
  /** Default {@link SETTLE_MS}. */
  settleMs?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

interface Outage {
  since: number;
  cause: string;
  /** Calls failed since the outage began. */
  failed: number;
  /** When the last line about it was written, and the counts then. */
  toldAt: number;
  failedWhenTold: number;
  /** Started soon after the previous outage ended: it ends once writes have settled. */
  relapse: boolean;
  /** Since when writes work again (a relapse only), and how often they turned back to failing. */
  workingSince: number | undefined;
  flips: number;
  flipsWhenTold: number;
}

/** The write outages of one SQLite database, logged in a bounded number of lines. */
export class SqliteOutageLog implements LoggedOutage {
  readonly #o: SqliteOutageLogOptions;
  readonly #now: () => number;
  #outage: Outage | undefined;
  /** When the last outage's end was logged. */
  #endedAt: number | undefined;

  constructor(options: SqliteOutageLogOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether writes fail as far as this log knows (until its end line). */
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

  /**
   * A write committed changes: the outage ends, with one line; a relapse
   * only once writes have worked for {@link SETTLE_MS}.
   */
  wrote(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    const now = this.#now();
    if (outage.relapse) {
      outage.workingSince ??= now;
      if (now - outage.workingSince < (this.#o.settleMs ?? SETTLE_MS)) return;
    }
    this.#outage = undefined;
    this.#endedAt = now;
    const { label, path } = this.#o;
    const turns = outage.flips === 0
      ? ""
      : `; they had failed and worked by turns (${times(outage.flips)}) before`;
    this.#o.log.info(
      `Writes to the ${label} database "${path}" work again after ${seconds(now - outage.since)}: ${
        calls(outage.failed)
      } failed meanwhile${turns}`,
      { path, failed_calls: outage.failed },
    );
  }

  #unwritable(cause: string): void {
    const outage = this.#outage;
    if (outage !== undefined) {
      outage.cause = cause;
      if (outage.workingSince !== undefined) {
        outage.workingSince = undefined;
        outage.flips++;
      }
      this.#remind(outage);
      return;
    }
    const now = this.#now();
    const relapse = this.#endedAt !== undefined &&
      now - this.#endedAt < (this.#o.flapMs ?? FLAP_MS);
    this.#outage = {
      since: now,
      cause,
      failed: 0,
      toldAt: now,
      failedWhenTold: 0,
      relapse,
      workingSince: undefined,
      flips: 0,
      flipsWhenTold: 0,
    };
    this.#o.log.error(
      `Writes to the ${this.#o.label} database fail: ${cause}: ${this.#o.consequence}`,
      { path: this.#o.path },
    );
  }

  #remind(outage: Outage): void {
    const now = this.#now();
    if (now - outage.toldAt < (this.#o.reminderMs ?? REMINDER_MS)) return;
    const failed = outage.failed - outage.failedWhenTold;
    const flips = outage.flips - outage.flipsWhenTold;
    const turns = flips === 0 ? "" : `, working in between ${times(flips)}`;
    this.#o.log.warn(
      `Writes to the ${this.#o.label} database still fail after ${seconds(now - outage.since)}: ${
        calls(failed)
      } failed in the last ${seconds(now - outage.toldAt)}${turns}: ${outage.cause}`,
      { path: this.#o.path, failed_calls: failed },
    );
    outage.toldAt = now;
    outage.failedWhenTold = outage.failed;
    outage.flipsWhenTold = outage.flips;
  }
}

/** engine-queue's {@link SqliteOutageLog}: its label and consequence filled in. */
export class QueueOutageLog extends SqliteOutageLog {
  constructor(options: Omit<SqliteOutageLogOptions, "label" | "consequence">) {
    super({
      ...options,
      label: "queue",
      consequence: "enqueues fail and no message is delivered meanwhile",
    });
  }
}

/**
 * `transaction` telling `outages` what happens: a failure of the storage is
 * logged by it (once per outage) and comes back marked; during an outage, a
 * transaction that changed rows (`changes`: SQLite's `total_changes()`) is a
 * write that worked.
 */
export function watchedTransaction(
  transaction: Transaction,
  outages: SqliteOutageLog,
  changes: () => number,
): Transaction {
  return (body) => {
    const before = outages.down ? changes() : undefined;
    let result;
    try {
      result = transaction(body);
    } catch (error) {
      throw outages.failed(error);
    }
    if (before !== undefined && changes() !== before) outages.wrote();
    return result;
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function calls(n: number): string {
  return n === 1 ? "1 call" : `${n} calls`;
}

function times(n: number): string {
  return n === 1 ? "once" : `${n} times`;
}

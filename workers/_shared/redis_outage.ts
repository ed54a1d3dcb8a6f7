/**
 * The log of a Redis connection's outages, bounded however long they last
 * and however many calls fail meanwhile: one error line when Redis becomes
 * unreachable, then at most one reminder per {@link REMINDER_MS} with the
 * count of calls that failed since, and one line when it is back.
 *
 * It is told what ioredis sees (a connection error, a command given up, an
 * answer, the connection ready again) and keeps no timer: reminders are
 * written when something happens, and while Redis is down ioredis retries
 * every few seconds, each retry an event.
 *
 * @module
 */

import type { Logger } from "../../engine/api.ts";
import type { LoggedOutage } from "./store_outage.ts";

/** The shortest time between two "still unreachable" lines of one outage. */
export const REMINDER_MS = 15_000;

/** Options of {@link RedisOutageLog}. */
export interface RedisOutageLogOptions {
  /** The Redis URL as logs show it (password redacted). */
  where: string;
  log: Logger;
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

/** The outages of one Redis connection, logged in a bounded number of lines. */
export class RedisOutageLog implements LoggedOutage {
  readonly #o: RedisOutageLogOptions;
  readonly #now: () => number;
  #outage: Outage | undefined;

  constructor(options: RedisOutageLogOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Whether Redis is unreachable as far as this log knows. */
  get down(): boolean {
    return this.#outage !== undefined;
  }

  /**
   * Redis cannot be reached, because of `cause`: the first time, one error
   * line; during an outage, a reminder when one is due.
   */
  unreachable(cause: string): void {
    const outage = this.#outage;
    if (outage === undefined) {
      const now = this.#now();
      this.#outage = { since: now, cause, failed: 0, toldAt: now, failedWhenTold: 0 };
      this.#o.log.error(
        `Redis at ${this.#o.where} is unreachable: ${cause}: calls that need it fail until it is back`,
        { url: this.#o.where },
      );
      return;
    }
    outage.cause = cause;
    this.#remind(outage);
  }

  /** A call failed during the outage. */
  countFailedCall(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    outage.failed++;
    this.#remind(outage);
  }

  /** Redis answers again: one line when it was unreachable. */
  reachable(): void {
    const outage = this.#outage;
    if (outage === undefined) return;
    this.#outage = undefined;
    this.#o.log.info(
      `Redis at ${this.#o.where} is reachable again after ${seconds(this.#now() - outage.since)}: ${
        calls(outage.failed)
      } failed meanwhile`,
      { url: this.#o.where, failed_calls: outage.failed },
    );
  }

  #remind(outage: Outage): void {
    const now = this.#now();
    if (now - outage.toldAt < (this.#o.reminderMs ?? REMINDER_MS)) return;
    const failed = outage.failed - outage.failedWhenTold;
    this.#o.log.warn(
      `Redis at ${this.#o.where} is still unreachable after ${seconds(now - outage.since)}: ${
        calls(failed)
      } failed in the last ${seconds(now - outage.toldAt)}: ${outage.cause}`,
      { url: this.#o.where, failed_calls: failed },
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

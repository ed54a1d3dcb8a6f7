/**
 * The time source of the delivery loop, injected so tests can move time by
 * hand ({@link ManualClock}) instead of sleeping.
 *
 * @module
 */

import { setImmediate } from "node:timers";

/** Reads the time and runs one-shot timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` after `ms`; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Runs `callback` once the I/O already waiting has been handled (this turn of the event loop). */
  soon(callback: () => void): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  soon: (callback) => void setImmediate(callback),
};

/** A clock that only moves when told to; its timers fire inside {@link ManualClock.advance}. */
export class ManualClock implements Clock {
  #now: number;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): number {
    const handle = this.#next++;
    this.#timers.set(handle, { at: this.#now + Math.max(0, ms), callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  soon(callback: () => void): void {
    queueMicrotask(callback);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing the timers that come due, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let first: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= end && (first === undefined || entry[1].at < first[1].at)) first = entry;
      }
      if (first === undefined) break;
      this.#timers.delete(first[0]);
      this.#now = Math.max(this.#now, first[1].at);
      first[1].callback();
    }
    this.#now = end;
  }
}

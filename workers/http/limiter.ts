/**
 * Concurrency slots for the whole server: at most `limit` requests in
 * progress; the next ones wait in arrival order, up to `maxWaiting` of them,
 * and a request beyond that is refused at once. A waiter whose signal aborts
 * (its time-out, its client leaving) gives up its place.
 *
 * @module
 */

export type AcquireOutcome = "acquired" | "queue_full";

export class Limiter {
  readonly limit: number;
  readonly maxWaiting: number;
  #active = 0;
  readonly #waiters = new Set<() => void>();

  constructor(limit: number, maxWaiting = 4 * limit) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Invalid concurrency limit ${limit}: must be a positive integer`);
    }
    this.limit = limit;
    this.maxWaiting = maxWaiting;
  }

  /** Requests holding a slot. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** Takes a slot if one is free right now. */
  tryAcquire(): boolean {
    if (this.#active >= this.limit) return false;
    this.#active++;
    return true;
  }

  /**
   * Takes a slot, waiting for one when none is free; `"queue_full"` when too
   * many are waiting already. Rejects with `signal.reason` if it aborts first.
   */
  acquire(signal: AbortSignal): Promise<AcquireOutcome> {
    if (this.tryAcquire()) return Promise.resolve("acquired");
    if (this.#waiters.size >= this.maxWaiting) return Promise.resolve("queue_full");
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve("acquired");
      };
      const onAbort = () => {
        this.#waiters.delete(wake);
        reject(signal.reason);
      };
      this.#waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Gives a slot back, straight to the longest waiter if there is one. */
  release(): void {
    for (const wake of this.#waiters) {
      this.#waiters.delete(wake);
      wake(); // the slot passes on; `active` stays the same
      return;
    }
    this.#active--;
  }
}

/**
 * A request's scope: its time budget and its trace, shared by every step, and
 * how it ends early: `default_timeout` running out, or the worker stopping.
 *
 * The time-outs of all requests share one timer ({@link Scopes}): every
 * request has the same `default_timeout`, so they expire in arrival order, and
 * the timer is armed for the oldest. A timer and an `AbortController` per
 * request were a tenth of the worker's CPU time per request. Function calls
 * need neither: the engine bounds each call by the time left, and the worker's
 * stop signal cancels them. When the last request ends the timer stays armed,
 * no longer holding the process open: requests one at a time (one client)
 * would otherwise arm and clear a timer each.
 *
 * @module
 */

const TIMED_OUT = new DOMException("Request timed out", "TimeoutError");

/** The longest delay `setTimeout` takes; a later deadline re-arms when it fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class RequestScope {
  /** `performance.now()` at which `default_timeout` runs out. */
  readonly expiresAt: number;
  /** Aborted when the worker stops. */
  readonly stopping: AbortSignal;
  readonly traceparent: string;
  readonly baggage: string | undefined;
  #ended = false;
  #reason: unknown;
  #waiters: Set<(reason: unknown) => void> | undefined;
  #controller: AbortController | undefined;

  constructor(
    expiresAt: number,
    stopping: AbortSignal,
    trace: { traceparent: string; baggage?: string | null | undefined },
  ) {
    this.expiresAt = expiresAt;
    this.stopping = stopping;
    this.traceparent = trace.traceparent;
    this.baggage = trace.baggage ?? undefined;
  }

  /** Whether the request ran out of time or the worker stopped. */
  get ended(): boolean {
    return this.#ended;
  }

  /** A signal that aborts when the scope ends (made on first use). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ended) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** `promise`, or a rejection with the reason as soon as the scope ends. */
  bound<T>(promise: Promise<T>): Promise<T> {
    if (this.#ended) {
      promise.catch(() => {}); // settled later, by nobody's wish
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      const waiters = this.#waiters ??= new Set();
      waiters.add(reject);
      promise.then(
        (value) => {
          waiters.delete(reject);
          resolve(value);
        },
        (error) => {
          waiters.delete(reject);
          reject(error);
        },
      );
    });
  }

  /** Ends the scope with `reason` (the first end counts). */
  end(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    if (this.#waiters) { for (const reject of this.#waiters) reject(reason); }
  }
}

/** Where {@link Scopes} take the time and their timer from (tests pass their own). */
export interface Clock {
  /** Milliseconds on the clock of `performance.now()`. */
  now(): number;
  /** Returns the timer's handle, for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Whether the timer keeps the process alive (`Deno.refTimer`, `Deno.unrefTimer`). */
  hold(handle: unknown, held: boolean): void;
}

const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  hold: (handle, held) => {
    const id = handle as ReturnType<typeof setTimeout>;
    if (held) Deno.refTimer(id);
    else Deno.unrefTimer(id);
  },
};

/** The scopes of the requests in progress, and their one time-out timer. */
export class Scopes {
  readonly #timeoutMs: number;
  readonly #stopping: AbortSignal;
  readonly #clock: Clock;
  /** In arrival order, which is expiry order. */
  readonly #live = new Set<RequestScope>();
  /** Armed while requests are open, and after the last until it fires (then unheld). */
  #timer: unknown;

  constructor(timeoutMs: number, stopping: AbortSignal, clock: Clock = SYSTEM_CLOCK) {
    this.#timeoutMs = timeoutMs;
    this.#stopping = stopping;
    this.#clock = clock;
    stopping.addEventListener("abort", () => {
      for (const scope of this.#live) scope.end(stopping.reason);
    }, { once: true });
  }

  /** Opens the scope of a request that arrived at `arrived` (`performance.now()`). */
  open(arrived: number, trace: { traceparent: string; baggage?: string | null }): RequestScope {
    const scope = new RequestScope(arrived + this.#timeoutMs, this.#stopping, trace);
    if (this.#stopping.aborted) scope.end(this.#stopping.reason);
    if (this.#live.size === 0 && this.#timer !== undefined) this.#clock.hold(this.#timer, true);
    this.#live.add(scope);
    // An armed timer is due no later than this scope (all have the same time-out): when it
    // fires, it re-arms for the oldest scope still open.
    if (this.#timer === undefined) this.#arm(scope.expiresAt);
    return scope;
  }

  /** Closes a scope whose request is done; after the last one the timer no longer holds the process. */
  close(scope: RequestScope): void {
    if (!this.#live.delete(scope)) return;
    if (this.#live.size === 0 && this.#timer !== undefined) this.#clock.hold(this.#timer, false);
  }

  #arm(at: number): void {
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil(at - this.#clock.now())));
    this.#timer = this.#clock.setTimeout(() => this.#expire(), delay);
  }

  /** Ends the scopes whose time is up, oldest first, and re-arms for the next one. */
  #expire(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (const scope of this.#live) {
      if (scope.expiresAt > now) {
        this.#arm(scope.expiresAt);
        return;
      }
      scope.end(TIMED_OUT);
    }
  }
}

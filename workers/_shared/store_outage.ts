/**
 * Store failures whose cause is already in the log: while a store is down
 * (Redis unreachable), its connection logs the outage once and marks each
 * failure it causes, so the code that would log every failed call or poll
 * (`storeGuard`, the queue's dispatcher) counts it instead. Callers still get
 * the error: only the log line is spared.
 *
 * @module
 */

/** An outage already logged, counting the calls that fail during it. */
export interface LoggedOutage {
  /** One more call failed because of it. */
  countFailedCall(): void;
}

const OUTAGE = Symbol("logged store outage");

/** Marks `error` as caused by `outage`, which is logged already; returns it. */
export function markLoggedOutage<E extends Error>(error: E, outage: LoggedOutage): E {
  Object.defineProperty(error, OUTAGE, { value: outage });
  return error;
}

/** The logged outage that caused `error`, if any (see {@link markLoggedOutage}). */
export function loggedOutageOf(error: unknown): LoggedOutage | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  return (error as { [OUTAGE]?: LoggedOutage })[OUTAGE];
}

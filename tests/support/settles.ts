/**
 * A bound on a wait that must end: for tests of hangs, where the failure is
 * "still waiting", not a timing.
 *
 * @module
 */

/** `promise`, or a failure naming `what` when it has not settled after `ms` (a hang, not a timing). */
export async function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) =>
    timer = setTimeout(() => reject(new Error(`${what} still hangs after ${ms} ms`)), ms)
  );
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The `CallError`s a built-in worker's functions answer with when the call
 * cannot be served: a payload refused before anything is read or written,
 * and a store (SQLite, Redis) that failed under a call.
 *
 * @module
 */

import { CallError, type Logger } from "../../engine/api.ts";

/**
 * `Invalid input for state::set: "scope" must be a non-empty string`, with
 * code `INVALID_ARGUMENT` unless the function has a more precise one.
 */
export function invalidInput(fn: string, problem: string, code = "INVALID_ARGUMENT"): CallError {
  return new CallError({ code, message: `Invalid input for ${fn}: ${problem}` });
}

/**
 * Runs one store call of a function. A failure that is not already a
 * `CallError` (a full disk, Redis gone) becomes one with `code` and the
 * message `Cannot <action>: <detail>`, and is logged at error level with the
 * code as a field.
 */
export type StoreGuard = <T>(
  code: string,
  action: string,
  call: () => T | Promise<T>,
) => Promise<T>;

/** A {@link StoreGuard} logging to `log`. */
export function storeGuard(log: Logger): StoreGuard {
  return async (code, action, call) => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof CallError) throw error;
      const message = `Cannot ${action}: ${error instanceof Error ? error.message : String(error)}`;
      log.error(message, { code });
      throw new CallError({ code, message });
    }
  };
}

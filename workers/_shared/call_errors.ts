/**
 * The `CallError`s a built-in worker's functions answer with when the call
 * cannot be served: a payload refused before anything is read or written,
 * and a store (SQLite, Redis) that failed under a call.
 *
 * @module
 */

import { CallError, type Logger } from "../../engine/api.ts";
import type { StoreLocation } from "./store_config.ts";
import { loggedOutageOf } from "./store_outage.ts";

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
 * message `Cannot <action>: <detail>`, followed by where the data lives when
 * the detail does not say (`(SQLite database "/data/state.db")`), and is
 * logged at error level with the code as a field, unless an outage already
 * logged caused it (Redis unreachable, see `store_outage.ts`): that outage
 * counts it instead.
 */
export type StoreGuard = <T>(
  code: string,
  action: string,
  call: () => T | Promise<T>,
) => Promise<T>;

/** A {@link StoreGuard} logging to `log`; `location` is where the store keeps its data. */
export function storeGuard(log: Logger, location: StoreLocation = {}): StoreGuard {
  return async (code, action, call) => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof CallError) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      const where = location.path !== undefined && !detail.includes(location.path)
        ? ` (SQLite database "${location.path}")`
        : "";
      const message = `Cannot ${action}: ${detail}${where}`;
      const outage = loggedOutageOf(error);
      if (outage === undefined) log.error(message, { code });
      else outage.countFailedCall();
      throw new CallError({ code, message });
    }
  };
}

/**
 * Test support: a `Logger` for code under test that keeps its error lines, so
 * a test can assert what was logged when something failed.
 *
 * @module
 */

import type { Logger } from "../../engine/api.ts";

/** A logger dropping every line but errors, which it keeps as `[message, data]`. */
export function recordingLog(): { log: Logger; errors: [message: string, data: unknown][] } {
  const errors: [string, unknown][] = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message, data) => void errors.push([message, data]),
    child: () => log,
  };
  return { log, errors };
}

/**
 * Test support: a `Logger` for code under test that keeps its info and error
 * lines, so a test can assert what was logged.
 *
 * @module
 */

import type { Logger } from "../../engine/api.ts";

/** One kept line: its message and its fields. */
export type LoggedLine = [message: string, data: unknown];

/** A logger dropping debug and warn lines and keeping info and error ones. */
export function recordingLog(): { log: Logger; infos: LoggedLine[]; errors: LoggedLine[] } {
  const infos: LoggedLine[] = [];
  const errors: LoggedLine[] = [];
  const log: Logger = {
    debug() {},
    info: (message, data) => void infos.push([message, data]),
    warn() {},
    error: (message, data) => void errors.push([message, data]),
    child: () => log,
  };
  return { log, infos, errors };
}

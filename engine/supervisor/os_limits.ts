/**
 * Errors of the operating system's limits on the engine process, which pass
 * once files or processes are freed: the open-file limit (EMFILE, and the
 * system-wide ENFILE) and the process limit (EAGAIN from a spawn). Whatever
 * failed on them is worth trying again, and the message says what to raise.
 *
 * @module
 */

const HINTS: [RegExp, string][] = [
  [/\(os error 24\)/, `the engine's open-file limit is reached: raise it with "ulimit -n"`],
  [/\(os error 23\)/, `the system's open-file limit is reached: raise fs.file-max`],
  [/\(os error 11\)/, `no new process for now: the process limit, "ulimit -u", may be reached`],
];

/** ` (what to do)` when `error` is one of those limits, else `""`. */
export function osLimitHint(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const hint = HINTS.find(([pattern]) => pattern.test(message));
  return hint ? ` (${hint[1]})` : "";
}

/**
 * The SDK connection under `engine logs -f` and `engine console` reports
 * its state ("Connected to …", "Reconnecting in …") with `console.info` and
 * `console.debug`, which Deno writes to standard output, where these
 * commands print their data: `engine logs -f > file` would hold them among
 * the entries. The CLI prints its own output through `Io`, never `console`,
 * so both go to standard error instead.
 *
 * @module
 */

/** Sends `console.info` and `console.debug` to standard error for the rest of the process. */
export function sdkNoticesToStderr(): void {
  console.info = console.error;
  console.debug = console.error;
}

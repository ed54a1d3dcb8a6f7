/**
 * The SDK connection under `engine logs -f` and `engine console` reports
 * its state ("Connected to …", "Reconnecting in …") with `console.info` and
 * `console.debug`, which Deno writes to standard output, where these
 * commands print their data: `engine logs -f > file` would hold them among
 * the entries. The CLI prints its own output through `Io`, never `console`,
 * so both go to standard error instead. `engine logs -f` ends when the
 * engine goes away, saying so itself, so it drops the SDK's notices.
 *
 * @module
 */

/** Sends `console.info` and `console.debug` to standard error for the rest of the process. */
export function sdkNoticesToStderr(): void {
  console.info = console.error;
  console.debug = console.error;
}

/**
 * Drops the SDK's connection notices ("Disconnected from …", "Reconnecting
 * in …", the refused connections of each try) for the rest of the process,
 * for a command that says itself, in one line, what losing the engine means
 * for it. Anything else written with `console.warn`, `console.info` or
 * `console.debug` goes to standard error; `console.error` is left alone.
 */
export function quietSdkNotices(): void {
  const toStderr = console.error;
  const unlessSdk = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("[engine-sdk] ")) return;
    toStderr(...args);
  };
  console.warn = unlessSdk;
  console.info = unlessSdk;
  console.debug = unlessSdk;
}

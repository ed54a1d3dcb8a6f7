/**
 * The native server's accept loop. When accepting fails (too many open
 * files, say: the connection stays queued, so the next accept fails at once)
 * it waits before trying again, 5 ms doubling up to 1 s, instead of spinning
 * on the error and filling the log with it.
 *
 * @module
 */

export interface AcceptLoopOptions {
  /** Takes each accepted connection (without awaiting anything). */
  onConn: (conn: Deno.TcpConn) => void;
  /** Told of each failed accept and how long the loop waits before the next. */
  onError: (error: unknown, retryInMs: number) => void;
  /** Aborted when the server stops: the loop ends, a wait in progress too. */
  signal: AbortSignal;
  /** Waits `ms` or until `signal` aborts; tests replace it. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The first wait after a failed accept; each failure in a row doubles it. */
export const FIRST_RETRY_MS = 5;
/** The longest wait between failed accepts. */
export const MAX_RETRY_MS = 1000;

/** Accepts until `listener` is closed or `signal` aborts. */
export async function acceptLoop(
  listener: Pick<Deno.Listener<Deno.TcpConn>, "accept">,
  options: AcceptLoopOptions,
): Promise<void> {
  const { signal, wait = delay } = options;
  let retryMs = 0;
  while (!signal.aborted) {
    let conn: Deno.TcpConn;
    try {
      conn = await listener.accept();
    } catch (e) {
      if (signal.aborted || e instanceof Deno.errors.BadResource) return;
      retryMs = retryMs === 0 ? FIRST_RETRY_MS : Math.min(retryMs * 2, MAX_RETRY_MS);
      options.onError(e, retryMs);
      await wait(retryMs, signal);
      continue;
    }
    retryMs = 0;
    options.onConn(conn);
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

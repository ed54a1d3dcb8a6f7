/**
 * `Deno.serve` that outlives a failed accept. When `Deno.serve` cannot accept
 * a connection (too many open files, the usual case: one client too many for
 * the process's open-file limit) its listener stops for good and its
 * `finished` promise rejects; unhandled, the rejection ends the process. The
 * connections it had are still served. This keeps them, tells `onAcceptError`
 * and listens again on the same address after a pause (5 ms, doubling up to
 * 1 s while it keeps failing), so the server is back once connections close.
 * `shutdown()` stops every listener it had and waits for their requests.
 *
 * @module
 */
import { FIRST_RETRY_MS, MAX_RETRY_MS } from "./accept_loop.ts";

export interface LastingServeOptions {
  hostname: string;
  port: number;
  handler: Deno.ServeHandler<Deno.NetAddr>;
  onError?: (error: unknown) => Response | Promise<Response>;
  /** Told when the server stopped accepting, and when it will listen again. */
  onAcceptError: (error: unknown, retryInMs: number) => void;
  /** Told when it listens again after a failed accept. */
  onListenAgain?: () => void;
}

export interface LastingServer {
  /** Where it listens: `port` is the bound one, also when 0 was asked for. */
  readonly addr: Deno.NetAddr;
  /** Stops listening and waits for the requests in progress on every listener it had. */
  shutdown(): Promise<void>;
  /** Settles once `shutdown()` has. */
  readonly finished: Promise<void>;
}

/** A failure that came this long after the last listen starts the pauses from the first again. */
const CALM_MS = 10_000;

/**
 * Serves `handler` on `hostname:port`; throws as `Deno.serve` does when the
 * address cannot be bound in the first place.
 */
export function serveLasting(options: LastingServeOptions): LastingServer {
  const servers = new Set<Deno.HttpServer<Deno.NetAddr>>();
  let stopping = false;
  let retryMs = 0;
  let listenedAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let resolveFinished = () => {};
  const finished = new Promise<void>((resolve) => resolveFinished = resolve);

  const failed = (error: unknown) => {
    if (stopping) return;
    const calm = performance.now() - listenedAt > CALM_MS;
    retryMs = retryMs === 0 || calm ? FIRST_RETRY_MS : Math.min(retryMs * 2, MAX_RETRY_MS);
    options.onAcceptError(error, retryMs);
    timer = setTimeout(listenAgain, retryMs);
  };
  const listen = (port: number) => {
    const server = Deno.serve({
      hostname: options.hostname,
      port,
      onListen: () => {},
      handler: options.handler,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    listenedAt = performance.now();
    servers.add(server);
    server.finished.catch(failed);
    return server;
  };
  const addr = listen(options.port).addr;
  const listenAgain = () => {
    timer = undefined;
    if (stopping) return;
    try {
      listen(addr.port);
    } catch (error) {
      failed(error);
      return;
    }
    options.onListenAgain?.();
  };

  return {
    addr,
    finished,
    async shutdown() {
      stopping = true;
      clearTimeout(timer);
      await Promise.all([...servers].map((server) => server.shutdown()));
      resolveFinished();
    },
  };
}

/** The words for an accept error, with what to do when it is the open-file limit. */
export function describeAcceptError(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/^Error: /, "");
  return /too many open files|os error 24/i.test(text)
    ? `${text} (the process's open-file limit is reached: raise it with "ulimit -n", or close connections)`
    : text;
}

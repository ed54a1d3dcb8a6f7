/**
 * `engine-http`: the built-in worker that serves one HTTP endpoint per
 * registered `http` trigger, on `Deno.serve` at the configured host and port.
 *
 * @module
 */
import { RequestIds } from "./request_channels.ts";
import type { Hono } from "hono";
import type {
  BuiltinWorker,
  EngineApi,
  Logger,
  RunningWorker,
  SpanRecord,
} from "../../engine/api.ts";
import {
  describeAcceptError,
  type LastingServer,
  serveLasting,
} from "../../engine/transport/lasting_serve.ts";
import { createApp } from "./app.ts";
import type { Invoker } from "./calls.ts";
import {
  DEFAULT_CONFIG,
  type HttpConfig,
  HttpConfigSchema,
  type MiddlewareEntry,
  parseHttpConfig,
} from "./config.ts";
import { Cors } from "./cors.ts";
import { Limiter } from "./limiter.ts";
import { httpTriggerProvider, LiveRoutes, TRIGGER_DESCRIPTION, TRIGGER_TYPE } from "./triggers.ts";
import { HTTP_TRIGGER_FORMATS } from "./trigger_formats.ts";

export type { HttpConfig } from "./config.ts";

/** What `describe()` reports to `engine::workers::list` and the console. */
export interface HttpWorkerStatus {
  [key: string]: unknown;
  host: string;
  port: number;
  routes: { method: string; path: string; function_id: string }[];
  /** Requests holding a concurrency slot. */
  in_flight: number;
  /** Requests waiting for a slot. */
  waiting: number;
}

export const httpWorker: BuiltinWorker<HttpConfig> = {
  name: "engine-http",
  description: "Serves an HTTP endpoint for each registered http trigger",
  parseConfig: parseHttpConfig,
  configSchema: HttpConfigSchema,
  defaultConfig: DEFAULT_CONFIG,
  start: startHttpWorker,
};

/** How long a stop waits for requests in progress: 5 s, or `default_timeout` if shorter. */
function stopGraceMs(config: HttpConfig): number {
  return Math.min(config.default_timeout, 5000);
}

/** Starts serving; resolves once the listener is bound. */
export function startHttpWorker(
  api: EngineApi,
  config: HttpConfig,
): Promise<RunningWorker & { describe(): HttpWorkerStatus }> {
  const routes = new LiveRoutes();
  // One table of request refs for the worker's life: every app a config change builds shares it.
  const requestIds = api.channels ? new RequestIds(api.channels) : undefined;
  // One stop signal too: stopping ends the requests in progress of every app.
  const stopping = new AbortController();
  const build = (config: HttpConfig, limiter?: Limiter) =>
    configuredApp(config, {
      routes,
      invoker: api,
      log: api.log,
      recordSpan: (span) => api.recordSpan(span),
      ...(limiter ? { limiter } : {}),
      ...(requestIds ? { requestIds } : {}),
      stopping,
    });
  /** The app new requests reach; a config change swaps it, requests in progress keep theirs. */
  let current = build(config);

  let server: LastingServer;
  try {
    server = serveLasting({
      hostname: config.host,
      port: config.port,
      handler: (request) => current.app.fetch(request),
      onAcceptError: (e, retryInMs) =>
        api.log.error(
          `HTTP worker cannot accept connections: listening again in ${retryInMs} ms`,
          { error: describeAcceptError(e) },
        ),
      onListenAgain: () => api.log.info("HTTP worker listens again"),
    });
  } catch (e) {
    const reason = e instanceof Deno.errors.AddrInUse
      ? "address already in use"
      : (e as Error).message;
    return Promise.reject(
      new Error(`Cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: e }),
    );
  }
  const unregisterType = api.registerTriggerType(
    TRIGGER_TYPE,
    TRIGGER_DESCRIPTION,
    httpTriggerProvider(routes),
    HTTP_TRIGGER_FORMATS,
  );
  const port = server.addr.port;
  api.log.info(`API listening on address: ${config.host}:${port}`);

  return Promise.resolve({
    async stop() {
      unregisterType();
      // New connections are refused at once; requests in progress may finish within the grace
      // period (their workers are still there when the engine shuts down), the rest end with 503.
      const drained = server.shutdown();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        drained,
        new Promise((resolve) => timer = setTimeout(resolve, stopGraceMs(config))),
      ]);
      clearTimeout(timer);
      stopping.abort(new DOMException("The HTTP worker is stopping", "AbortError"));
      await drained;
      requestIds?.close();
    },
    reconfigure(next) {
      const changed = next as HttpConfig;
      // Another address needs another listener: a restart.
      if (changed.host !== config.host || changed.port !== config.port) return false;
      // The same limit keeps its slots: requests in progress and waiting still count.
      const same = changed.concurrency_request_limit === config.concurrency_request_limit;
      config = changed;
      current = build(config, same ? current.limiter : undefined);
      return true;
    },
    describe: () => ({
      host: config.host,
      port,
      routes: routes.table.routes().map((r) => ({
        method: r.method,
        path: r.pattern,
        function_id: r.functionId,
      })),
      in_flight: current.limiter.active,
      waiting: current.limiter.waiting,
    }),
  });
}

/**
 * The worker's app as `config` sets it up over `routes`, calling functions
 * through `parts.invoker`; aborting `stopping` ends the requests in progress.
 * The in-process tests build theirs here too, so they run this wiring.
 */
export function configuredApp(
  config: HttpConfig,
  parts: {
    routes: LiveRoutes;
    invoker: Invoker;
    log: Logger;
    recordSpan?: (span: SpanRecord) => void;
    /** The concurrency slots to use, when they carry on from an app this one replaces. */
    limiter?: Limiter;
    /** The table of request refs, when it carries on from an app this one replaces. */
    requestIds?: RequestIds;
    /** The stop signal, when it is shared with the apps this one replaces. */
    stopping?: AbortController;
  },
): { app: Hono; limiter: Limiter; stopping: AbortController } {
  const limiter = parts.limiter ?? new Limiter(config.concurrency_request_limit);
  const stopping = parts.stopping ?? new AbortController();
  const app = createApp({
    matcher: () => parts.routes.matcher(),
    limiter,
    cors: config.cors ? new Cors(config.cors) : undefined,
    pipeline: {
      invoker: parts.invoker,
      log: parts.log,
      globalMiddleware: byPriority(config.middleware).map((m) => m.function_id),
      middlewareTimeout: config.middleware_timeout,
      bodyLimit: config.body_limit,
      ...(parts.requestIds
        ? { requestIds: parts.requestIds }
        : parts.invoker.channels
        ? { requestIds: new RequestIds(parts.invoker.channels) }
        : {}),
      streamIdleMs: config.default_timeout,
    },
    defaultTimeout: config.default_timeout,
    stopping: stopping.signal,
    log: parts.log,
    recordSpan: parts.recordSpan,
  });
  return { app, limiter, stopping };
}

/** Global middleware by ascending priority; equal priorities keep config order (the sort is stable). */
export function byPriority(entries: readonly MiddlewareEntry[]): MiddlewareEntry[] {
  return [...entries].sort((a, b) => a.priority - b.priority);
}

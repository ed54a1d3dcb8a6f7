/**
 * Test helpers: an in-process app over plain async functions (no engine),
 * and a logger that keeps what it is told.
 *
 * @module
 */
import type { CallOptions, LogEntry, Logger, SpanRecord } from "../../engine/api.ts";
import { CallError } from "../../engine/api.ts";
import { functionNotFound, invocationTimeout } from "../../engine/protocol/errors.ts";
import { type HttpConfig, parseHttpConfig } from "./config.ts";
import { configuredApp } from "./mod.ts";
import { routeOf } from "./triggers.ts";
import { LiveRoutes } from "./triggers.ts";

export type Fn = (payload: unknown, options: CallOptions) => unknown;

export interface Recorded {
  level: LogEntry["level"];
  message: string;
  data?: unknown;
  /** What a `child()` logger added (trace id, function, …). */
  fields?: Record<string, unknown>;
}

export class MemoryLogger implements Logger {
  readonly entries: Recorded[];
  readonly #fields: Record<string, unknown> | undefined;
  constructor(entries: Recorded[] = [], fields?: Record<string, unknown>) {
    this.entries = entries;
    this.#fields = fields;
  }
  #push(level: LogEntry["level"], message: string, data: unknown) {
    this.entries.push({ level, message, data, ...(this.#fields ? { fields: this.#fields } : {}) });
  }
  debug(message: string, data?: unknown) {
    this.#push("debug", message, data);
  }
  info(message: string, data?: unknown) {
    this.#push("info", message, data);
  }
  warn(message: string, data?: unknown) {
    this.#push("warn", message, data);
  }
  error(message: string, data?: unknown) {
    this.#push("error", message, data);
  }
  child(fields: Record<string, unknown>): Logger {
    return new MemoryLogger(this.entries, { ...this.#fields, ...fields });
  }
}

export interface TestTrigger {
  id?: string;
  function_id: string;
  config: Record<string, unknown>;
  metadata?: unknown;
}

/**
 * An app whose functions are `functions`; `calls` records each call in order.
 * Its invoker keeps the engine's contract: `timeoutMs` fails a call with
 * `invocation_timeout`, and the functions see the call's `signal`.
 */
export function testApp(options: {
  functions?: Record<string, Fn>;
  triggers?: TestTrigger[];
  config?: Record<string, unknown>;
}) {
  const config: HttpConfig = parseHttpConfig(options.config ?? {});
  const functions = options.functions ?? {};
  const calls: { functionId: string; payload: unknown; options: CallOptions }[] = [];
  /** The request spans the app recorded. */
  const spans: SpanRecord[] = [];
  const log = new MemoryLogger();
  const routes = new LiveRoutes();
  let n = 0;
  for (const t of options.triggers ?? []) {
    const binding = {
      id: t.id ?? `t${++n}`,
      type: "http",
      functionId: t.function_id,
      config: t.config,
      workerId: "w1",
      ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
    };
    routes.add(routeOf(binding));
  }
  const { app, limiter, stopping } = configuredApp(config, {
    routes,
    invoker: {
      hasFunction: (id) => id in functions,
      async call(id, payload, callOptions = {}) {
        calls.push({ functionId: id, payload, options: callOptions });
        const fn = functions[id];
        if (!fn) {
          throw new CallError(functionNotFound(id));
        }
        return await withTimeout(
          id,
          Promise.resolve(fn(payload, callOptions)),
          callOptions.timeoutMs,
        );
      },
    },
    log,
    recordSpan: (span) => spans.push(span),
  });
  return { app, calls, log, limiter, routes, stopping, spans };
}

/** Fails `promise` with `invocation_timeout` after `ms`, as the engine's call does. */
async function withTimeout<T>(
  functionId: string,
  promise: Promise<T>,
  ms: number | undefined,
): Promise<T> {
  if (ms === undefined) return await promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CallError(invocationTimeout(functionId, ms))),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise that settles when `signal` aborts (a function that never answers on its own). */
export function hang(options: CallOptions): Promise<never> {
  return new Promise((_, reject) => {
    options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
  });
}

/** A JSON POST to `path` of `app` whose body is the stream `body` (read as the app pulls it). */
export function postStream(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  path: string,
  body: ReadableStream<Uint8Array>,
): Promise<Response> {
  return Promise.resolve(app.request(path, {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
    duplex: "half",
  } as RequestInit));
}

/** The parsed error body of a worker-made reply. */
export async function errorOf(
  response: Response,
): Promise<{ code: string; message: string; error_id?: string }> {
  const body = await response.json();
  return body.error;
}

/** Resolves once `condition()` holds, checking after each macrotask, for at most 10 s. */
export async function until(condition: () => boolean, what = "condition"): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** A promise and the function that resolves it. */
export function gate(): { opened: Promise<void>; open(): void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { opened: promise, open: () => resolve() };
}

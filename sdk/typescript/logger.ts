/**
 * Structured logs that land in the engine's log, tagged with the worker, the
 * function and the trace they were written in.
 *
 * @module
 */

import { currentScope, parseTraceparent } from "./trace.ts";
import { defaultWorker, type Worker } from "./worker.ts";

/** Log levels, each sent to the engine function `engine::log::<level>`. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/**
 * Options of a {@linkcode Logger}.
 *
 * @example
 * ```ts
 * const options: LoggerOptions = { serviceName: "billing" };
 * ```
 */
export interface LoggerOptions {
  /** Log through this worker instead of the one running the current handler. */
  worker?: Worker;
  /** Sent as `service_name`. */
  serviceName?: string;
  /** Trace to attach outside a handler (inside one, the handler's trace is used). */
  traceId?: string;
  spanId?: string;
}

/**
 * Sends log entries to the engine as fire-and-forget calls of
 * `engine::log::<level>` with `{message, data?, function_id?, trace_id?,
 * span_id?}`.
 *
 * A `Logger` can be created anywhere. Each call logs through the worker
 * running the current handler (and tags the entry with that handler's
 * function and trace), else through the most recently registered worker,
 * else it falls back to `console`. While the worker is reconnecting, entries
 * are queued and sent once it is back.
 *
 * @example
 * ```ts
 * import { Logger, registerWorker } from "./mod.ts";
 *
 * const logger = new Logger();
 * const worker = registerWorker("ws://127.0.0.1:49134", { worker_name: "orders" });
 * worker.registerFunction("orders::create", (order: { sku: string }) => {
 *   logger.info("Creating order", { sku: order.sku }); // tagged with orders::create and the call's trace
 *   return { ok: true };
 * });
 * logger.warn("Worker starting"); // outside a handler: logs through the latest worker
 * await worker.shutdown();
 * ```
 */
export class Logger {
  #options: LoggerOptions;

  constructor(options: LoggerOptions = {}) {
    this.#options = options;
  }

  /** Logs at level `info`. */
  info(message: string, data?: unknown): void {
    this.#log("info", message, data);
  }

  /** Logs at level `warn`. */
  warn(message: string, data?: unknown): void {
    this.#log("warn", message, data);
  }

  /** Logs at level `error`. */
  error(message: string, data?: unknown): void {
    this.#log("error", message, data);
  }

  /** Logs at level `debug`. */
  debug(message: string, data?: unknown): void {
    this.#log("debug", message, data);
  }

  #log(level: LogLevel, message: string, data: unknown): void {
    const scope = currentScope();
    const worker = this.#options.worker ?? (scope?.worker as Worker | undefined) ?? defaultWorker();
    if (!worker) {
      toConsole(level, message, data);
      return;
    }
    const trace = parseTraceparent(scope?.traceparent);
    const traceId = trace?.traceId ?? this.#options.traceId;
    const spanId = trace?.spanId ?? this.#options.spanId;
    const payload = {
      message: String(message),
      ...(data === undefined ? {} : { data: loggable(data) }),
      ...(scope ? { function_id: scope.functionId } : {}),
      ...(traceId ? { trace_id: traceId } : {}),
      ...(spanId ? { span_id: spanId } : {}),
      ...(this.#options.serviceName ? { service_name: this.#options.serviceName } : {}),
    };
    worker.trigger({ function_id: `engine::log::${level}`, payload, action: { type: "void" } })
      .catch(() => toConsole(level, message, data));
  }
}

function toConsole(level: LogLevel, message: string, data: unknown): void {
  if (data === undefined) console[level](message);
  else console[level](message, data);
}

/** Makes `data` JSON-safe: errors keep their name, message and stack; bigints become strings. */
function loggable(data: unknown): unknown {
  try {
    return JSON.parse(
      JSON.stringify(data, (_key, value) => {
        if (value instanceof Error) {
          return { name: value.name, message: value.message, stack: value.stack };
        }
        if (typeof value === "bigint") {
          return value.toString();
        }
        return value;
      }) ?? "null",
    );
  } catch {
    return String(data);
  }
}

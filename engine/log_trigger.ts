/**
 * The trigger type `log`, provided by the engine's own worker: its function
 * is called with every entry of the engine's log at or above the trigger's
 * level (`{level?: "all" | "debug" | "info" | "warn" | "error"}`, default
 * `all`), one call per entry, as an OpenTelemetry-style record
 * ({@link LogRecord}). Up to 8 calls per trigger are in flight; a function
 * that does not keep up loses the oldest entries past 1,000 waiting (one
 * warning says so). Deliveries are not recorded as spans.
 *
 * Loops. A function bound to `log` that logs would be called with its own
 * entry, log again, and so on forever; two such triggers would feed each
 * other. So an entry is not delivered when
 * - it belongs to the trace of a `log` delivery (each delivery starts a trace
 *   of its own): what the function logged through a Logger or
 *   `engine::log::*`, what the functions it called logged, and the engine's
 *   warning that a delivery failed or is dropping entries; to no `log`
 *   trigger;
 * - it carries no trace and comes from a worker that provides the bound
 *   function (its printed output, an untraced Logger): to that trigger.
 *
 * @module
 */
import { z } from "zod";
import type { EngineApi, LogEntry, LogLevel, TriggerBinding } from "./api.ts";
import type { Engine } from "./core.ts";
import { Deliveries } from "./deliveries.ts";
import type { LogStore } from "./observability/logs.ts";
import { configOf, formatsOf } from "./trigger_config.ts";

export const LOG_TRIGGER_TYPE = "log";

export const LogTriggerConfig = z.object({
  level: z.enum(["all", "debug", "info", "warn", "error"]).optional(),
}).loose();

/** What a `log` trigger's function receives: an entry as an OpenTelemetry log record. */
export interface LogRecord {
  timestamp_unix_nano: number;
  observed_timestamp_unix_nano: number;
  severity_number: number;
  severity_text: "DEBUG" | "INFO" | "WARN" | "ERROR";
  body: string;
  trace_id: string | null;
  span_id: string | null;
  service_name: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** {@link LogRecord} as a schema, for the type's `call_request_format`. */
const LogRecordSchema = z.object({
  timestamp_unix_nano: z.number(),
  observed_timestamp_unix_nano: z.number(),
  severity_number: z.number().int(),
  severity_text: z.enum(["DEBUG", "INFO", "WARN", "ERROR"]),
  body: z.string(),
  trace_id: z.string().nullable(),
  span_id: z.string().nullable(),
  service_name: z.string(),
  attributes: z.object({
    worker: z.string().optional(),
    function_id: z.string().optional(),
    "log.data": z.unknown().optional(),
  }),
  resource: z.object({ "service.name": z.string() }),
}).meta({ title: "LogRecord", description: "A log entry as an OpenTelemetry log record" });

const SEVERITY: Record<LogLevel, number> = { debug: 5, info: 9, warn: 13, error: 17 };

/** Trace ids of recent deliveries remembered for the loop guard. */
const REMEMBERED_TRACES = 10_000;

export function logRecord(e: LogEntry): LogRecord {
  const ns = e.time * 1_000_000;
  const attributes: Record<string, unknown> = {};
  if (e.worker !== undefined) attributes.worker = e.worker;
  if (e.function !== undefined) attributes.function_id = e.function;
  if (e.data !== undefined) attributes["log.data"] = e.data;
  return {
    timestamp_unix_nano: ns,
    observed_timestamp_unix_nano: ns,
    severity_number: SEVERITY[e.level],
    severity_text: e.level.toUpperCase() as LogRecord["severity_text"],
    body: e.message,
    trace_id: e.traceId ?? null,
    span_id: e.spanId ?? null,
    service_name: e.source,
    attributes,
    resource: { "service.name": e.source },
  };
}

/** A set that forgets its oldest members past `capacity`. */
class RecentSet {
  #items = new Set<string>();
  constructor(readonly capacity: number) {}
  add(item: string): void {
    this.#items.add(item);
    if (this.#items.size > this.capacity) {
      this.#items.delete(this.#items.values().next().value!);
    }
  }
  has(item: string): boolean {
    return this.#items.has(item);
  }
}

interface Subscription {
  binding: TriggerBinding;
  minSeverity: number;
  deliveries: Deliveries<LogRecord>;
}

/** Provides `log` through the engine's own worker; returns what stops it. */
export function registerLogTrigger(api: EngineApi, engine: Engine, logs: LogStore): () => void {
  const live = new Map<string, Subscription>();
  const deliveryTraces = new RecentSet(REMEMBERED_TRACES);
  const providers = (functionId: string) =>
    engine.functions.replicas(functionId).map((r) => engine.workers.get(r.owner)?.name);

  const unsubscribe = logs.ring.subscribe((entry) => {
    if (live.size === 0) return;
    if (entry.traceId !== undefined && deliveryTraces.has(entry.traceId)) return;
    let record: LogRecord | undefined;
    for (const sub of live.values()) {
      if (SEVERITY[entry.level] < sub.minSeverity) continue;
      if (entry.traceId === undefined) {
        const from = entry.worker ?? entry.source;
        if (providers(sub.binding.functionId).includes(from)) continue;
      }
      sub.deliveries.push(record ??= logRecord(entry));
    }
  });
  const stopType = api.registerTriggerType(
    LOG_TRIGGER_TYPE,
    "Fires with every entry of the engine's log at or above the trigger's level",
    {
      registerTrigger(binding) {
        const config = configOf(LOG_TRIGGER_TYPE, LogTriggerConfig, binding.config);
        const level = config.level ?? "all";
        live.get(binding.id)?.deliveries.close();
        live.set(binding.id, {
          binding,
          minSeverity: level === "all" ? 0 : SEVERITY[level],
          deliveries: new Deliveries(api, {
            type: LOG_TRIGGER_TYPE,
            triggerId: binding.id,
            functionId: binding.functionId,
            concurrency: 8,
            capacity: 1000,
            trace: false,
            onTrace: (traceId) => deliveryTraces.add(traceId),
          }),
        });
      },
      unregisterTrigger(binding) {
        live.get(binding.id)?.deliveries.close();
        live.delete(binding.id);
      },
    },
    formatsOf(LogTriggerConfig.meta({ title: "LogTriggerConfig" }), LogRecordSchema),
  );
  return () => {
    unsubscribe();
    stopType();
    for (const sub of live.values()) sub.deliveries.close();
    live.clear();
  };
}

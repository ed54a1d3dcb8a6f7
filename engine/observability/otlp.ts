/**
 * Telemetry frames from workers using the npm `iii-sdk`: a 4-byte prefix
 * (`LOGS`, `OTLP`, `MTRC`) and OTLP/JSON. Logs join the engine's log and
 * trace spans join the trace store; metrics are accepted and dropped.
 *
 * @module
 */
import type { LogEntry, LogLevel } from "../api.ts";
import type { WorkerConn } from "../core.ts";
import type { LogStore } from "./logs.ts";
import type { TraceStore } from "./traces.ts";

interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}

export function anyValue(v: AnyValue | undefined): unknown {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  if (v.kvlistValue) return attributes(v.kvlistValue.values);
  return null;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

function level(severity: number | undefined): LogLevel {
  if (!severity || severity < 9) return "debug";
  if (severity < 13) return "info";
  if (severity < 17) return "warn";
  return "error";
}

const nanosToMs = (n: string | number | undefined) =>
  n === undefined ? Date.now() : Number(BigInt(n) / 1_000_000n);

/** The worker and function a call in flight in a trace runs, for a log written inside it. */
export interface CallOfTrace {
  worker: string;
  functionId: string;
}

export interface TelemetryInput {
  logs: LogStore;
  traces: TraceStore;
  conn: WorkerConn | undefined;
  kind: string;
  json: string;
  /**
   * The call a log line of trace `traceId` (and span `spanId`) was written in
   * (`callOfTrace`): the telemetry socket is not the worker's
   * connection, and its `service.name` is the SDK's (`iii-node`), so a log
   * that names no function is placed by its trace.
   */
  callOfTrace?: (traceId: string, spanId?: string) => CallOfTrace | undefined;
  /**
   * Log lines not placed yet, by the span they were written in: the SDK
   * exports a handler's log line at once and its span (whose parent is the
   * engine's span of the call) in a later batch, so in a trace of several
   * calls the line is placed when its span arrives ({@linkcode Unplaced}).
   */
  unplaced?: Unplaced;
}

/** How many spans' unplaced log lines are kept waiting for their span. */
const MAX_UNPLACED = 1_000;

/**
 * Log lines of the telemetry socket waiting for their span, by span id; the
 * oldest are given up beyond {@linkcode MAX_UNPLACED} spans. The entries are
 * those of the log store: placing one amends it there.
 */
export class Unplaced {
  readonly #bySpan = new Map<string, LogEntry[]>();

  add(spanId: string, entry: LogEntry): void {
    const list = this.#bySpan.get(spanId);
    if (list) return void list.push(entry);
    if (this.#bySpan.size >= MAX_UNPLACED) {
      this.#bySpan.delete(this.#bySpan.keys().next().value!);
    }
    this.#bySpan.set(spanId, [entry]);
  }

  /** The lines written in span `spanId`, forgotten here. */
  take(spanId: string): LogEntry[] | undefined {
    const list = this.#bySpan.get(spanId);
    if (list) this.#bySpan.delete(spanId);
    return list;
  }

  get size(): number {
    return this.#bySpan.size;
  }
}

/** Ingests one frame; malformed frames are counted as a debug log, never thrown. */
export function ingestTelemetry(input: TelemetryInput): void {
  const { logs, traces, conn, kind, json } = input;
  try {
    const doc = JSON.parse(json);
    if (kind === "LOGS") ingestLogs(logs, conn, doc, input.callOfTrace, input.unplaced);
    else if (kind === "OTLP") ingestSpans(traces, conn, doc, input.callOfTrace, input.unplaced);
  } catch (e) {
    logs.write({
      time: Date.now(),
      level: "debug",
      source: "engine",
      message: `Dropped a malformed ${kind} telemetry frame: ${(e as Error).message}`,
    });
  }
}

/** A trace or span id: a non-empty string, else undefined. */
const idOf = (v: unknown) => typeof v === "string" && v !== "" ? v : undefined;

function ingestLogs(
  logs: LogStore,
  conn: WorkerConn | undefined,
  // deno-lint-ignore no-explicit-any
  doc: any,
  callOfTrace: TelemetryInput["callOfTrace"],
  unplaced: Unplaced | undefined,
): void {
  for (const rl of doc.resourceLogs ?? []) {
    const resource = attributes(rl.resource?.attributes);
    const service = conn?.name ?? String(resource["service.name"] ?? "worker");
    for (const sl of rl.scopeLogs ?? []) {
      for (const r of sl.logRecords ?? []) {
        const attrs = attributes(r.attributes);
        const data = attrs["log.data"];
        const traceId = idOf(r.traceId || attrs.trace_id);
        const spanId = idOf(r.spanId || attrs.span_id);
        const named = typeof attrs.function_id === "string" ? attrs.function_id : undefined;
        // Only a log from the telemetry socket naming no function needs placing.
        const call = conn === undefined && named === undefined && traceId
          ? callOfTrace?.(traceId, spanId)
          : undefined;
        const worker = call?.worker ?? service;
        const fn = named ?? call?.functionId;
        const entry = logs.write({
          time: nanosToMs(r.timeUnixNano),
          level: level(r.severityNumber),
          message: String(anyValue(r.body) ?? ""),
          source: worker,
          worker,
          ...(fn !== undefined ? { function: fn } : {}),
          ...(traceId ? { traceId } : {}),
          ...(spanId ? { spanId } : {}),
          ...(data !== undefined && data !== null ? { data } : {}),
        });
        if (conn === undefined && fn === undefined && spanId && traceId) {
          unplaced?.add(spanId, entry);
        }
      }
    }
  }
}

function ingestSpans(
  traces: TraceStore,
  conn: WorkerConn | undefined,
  // deno-lint-ignore no-explicit-any
  doc: any,
  callOfTrace: TelemetryInput["callOfTrace"],
  unplaced: Unplaced | undefined,
): void {
  for (const rs of doc.resourceSpans ?? []) {
    // The telemetry socket is not the worker's own connection: its resource names the worker.
    const service = attributes(rs.resource?.attributes)["service.name"];
    const worker = conn?.name ?? (typeof service === "string" ? service : undefined);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        if (typeof s.traceId !== "string" || typeof s.spanId !== "string") continue;
        const start = nanosToMs(s.startTimeUnixNano);
        const end = nanosToMs(s.endTimeUnixNano ?? s.startTimeUnixNano);
        traces.record({
          traceId: s.traceId,
          spanId: s.spanId,
          ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
          kind: "sdk",
          name: String(s.name ?? "span"),
          ...(worker ? { worker } : {}),
          start,
          durationMs: Math.max(0, end - start),
          status: s.status?.code === 2 ? "error" : "ok",
          attributes: attributes(s.attributes),
        });
        const waiting = unplaced?.size ? unplaced.take(s.spanId) : undefined;
        if (waiting) place(waiting, callOfTrace?.(s.traceId, s.spanId));
      }
    }
  }
}

/** Gives log lines written in a span, now known, the worker and function of its call. */
function place(entries: LogEntry[], call: CallOfTrace | undefined): void {
  if (!call) return;
  for (const entry of entries) {
    entry.worker = call.worker;
    entry.source = call.worker;
    entry.function = call.functionId;
  }
}

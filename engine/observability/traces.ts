/**
 * Spans of function calls, kept in a bounded ring. Every routed call is a
 * span; its parent is the span named by the caller's `traceparent`.
 *
 * @module
 */
import type { ErrorBody } from "../api.ts";
import { cutFields, cutText, MAX_MESSAGE } from "./cut.ts";
import { redactor } from "./redact.ts";
import { Ring } from "./ring.ts";

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** `call` for a routed function call; workers may add others (`http`). */
  kind: string;
  name: string;
  functionId?: string;
  worker?: string;
  /** Milliseconds since the epoch. */
  start: number;
  durationMs: number;
  status: "ok" | "error";
  error?: ErrorBody;
  attributes?: Record<string, unknown>;
}

const SPAN_NAMES = [
  "traceId",
  "spanId",
  "parentSpanId",
  "kind",
  "name",
  "functionId",
  "worker",
] as const;

export interface TraceSummary {
  traceId: string;
  rootName: string;
  start: number;
  durationMs: number;
  spanCount: number;
  status: "ok" | "error";
}

export class TraceStore {
  readonly ring: Ring<Span>;
  #redact: (value: unknown) => unknown;

  /** `options.redact`: keys redacted in attributes besides the usual secrets. */
  constructor(capacity = 10_000, options: { redact?: readonly string[] } = {}) {
    this.ring = new Ring(capacity);
    this.#redact = redactor(options.redact);
  }

  record(span: Span): void {
    const error = span.error;
    if (
      error &&
      (error.message.length > MAX_MESSAGE || (error.stacktrace?.length ?? 0) > MAX_MESSAGE)
    ) {
      const cut: ErrorBody = { ...error, message: cutText(error.message, MAX_MESSAGE) };
      if (error.stacktrace !== undefined) cut.stacktrace = cutText(error.stacktrace, MAX_MESSAGE);
      span = { ...span, error: cut };
    }
    // Names and ids come from workers too (an OTLP span's name, ids and service.name).
    span = cutFields(span, SPAN_NAMES);
    if (span.attributes !== undefined) {
      const attributes = this.#redact(span.attributes) as Record<string, unknown>;
      if (attributes !== span.attributes) span = { ...span, attributes };
    }
    this.ring.push(span);
  }

  trace(traceId: string): Span[] {
    return this.ring.toArray().filter((s) => s.traceId === traceId).sort((a, b) =>
      a.start - b.start
    );
  }

  /** Most recent first. */
  recent(limit = 100): TraceSummary[] {
    const byTrace = new Map<string, Span[]>();
    for (const s of this.ring.toArray()) {
      let list = byTrace.get(s.traceId);
      if (!list) byTrace.set(s.traceId, list = []);
      list.push(s);
    }
    const out: TraceSummary[] = [];
    for (const [traceId, spans] of byTrace) {
      const ids = new Set(spans.map((s) => s.spanId));
      const root = spans.find((s) => !s.parentSpanId || !ids.has(s.parentSpanId)) ?? spans[0]!;
      const start = Math.min(...spans.map((s) => s.start));
      const end = Math.max(...spans.map((s) => s.start + s.durationMs));
      out.push({
        traceId,
        rootName: root.name,
        start,
        durationMs: end - start,
        spanCount: spans.length,
        status: spans.some((s) => s.status === "error") ? "error" : "ok",
      });
    }
    return out.sort((a, b) => b.start - a.start).slice(0, limit);
  }
}

/**
 * The span of one HTTP request: the root of its trace (or a child of the
 * caller's span when the request carried a `traceparent`), under which the
 * engine records the middleware, condition and handler calls, since each of
 * them is made with the request's trace context.
 *
 * @module
 */
import type { SpanRecord } from "../../engine/api.ts";
import { HttpError } from "./errors.ts";
import type { RequestTrace } from "./trace.ts";

export interface RequestFacts {
  method: string;
  /** The matched route's pattern, e.g. `/orders/:id`. */
  route: string;
  /** The path as requested. */
  path: string;
  /** The request's trace context (its calls carry `trace.traceparent`). */
  trace: RequestTrace;
  /** Milliseconds since the epoch. */
  start: number;
}

/** The request's span, from how it ended: a response or the error turned into one. */
export function requestSpan(
  facts: RequestFacts,
  outcome: { response: Response } | { error: unknown },
): SpanRecord {
  const { traceId, spanId, parentSpanId } = facts.trace;
  const status = "response" in outcome
    ? outcome.response.status
    : outcome.error instanceof HttpError
    ? outcome.error.status
    : 500;
  const attributes = {
    "http.request.method": facts.method,
    "http.route": facts.route,
    "url.path": facts.path,
    "http.response.status_code": status,
  };
  const failed = status >= 500;
  const error = "error" in outcome && failed
    ? outcome.error instanceof HttpError
      ? { code: outcome.error.code, message: outcome.error.message }
      : {
        code: "internal_error",
        message: String((outcome.error as Error)?.message ?? outcome.error),
      }
    : undefined;
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    kind: "http",
    name: `${facts.method} ${facts.route}`,
    start: facts.start,
    durationMs: Date.now() - facts.start,
    status: failed ? "error" : "ok",
    ...(error ? { error } : {}),
    attributes,
  };
}

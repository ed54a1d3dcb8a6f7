/**
 * W3C trace context for an HTTP request: a valid inbound `traceparent`
 * header is continued (same trace, a new span under the caller's), otherwise
 * a trace starts here. Every call the request makes carries the result, and
 * the request's own span is recorded with these ids.
 *
 * @module
 */

import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
} from "../../engine/observability/traceparent.ts";

/** A request's trace context: parsed once, when the request arrives. */
export interface RequestTrace {
  /** What the request's calls carry. */
  traceparent: string;
  traceId: string;
  /** The request's own span: the parent of its calls. */
  spanId: string;
  /** The caller's span, when the request continued an inbound trace. */
  parentSpanId?: string;
}

/** The trace context of a request whose `traceparent` header was `inbound`. */
export function traceFor(inbound: string | null): RequestTrace {
  const parent = parseTraceparent(inbound);
  const spanId = newSpanId();
  // Only version 00 is continued; the engine's parser accepts any version but ff.
  if (parent !== undefined && inbound?.trim().startsWith("00-")) {
    return {
      traceparent: formatTraceparent({ ...parent, spanId }),
      traceId: parent.traceId,
      spanId,
      parentSpanId: parent.spanId,
    };
  }
  const traceId = newTraceId();
  return { traceparent: formatTraceparent({ traceId, spanId, flags: "01" }), traceId, spanId };
}

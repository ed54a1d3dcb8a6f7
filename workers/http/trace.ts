/**
 * W3C trace context for an HTTP request: a valid inbound `traceparent`
 * header is continued (same trace, a new span), otherwise a trace starts
 * here. Every call the request makes carries the result.
 *
 * @module
 */

import {
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
} from "../../engine/observability/traceparent.ts";

/** The `traceparent` for the calls of a request whose header was `inbound`. */
export function traceparentFor(inbound: string | null): string {
  const parent = parseTraceparent(inbound);
  // Only version 00 is continued; the engine's parser accepts any version but ff.
  if (parent !== undefined && inbound?.trim().startsWith("00-")) {
    return formatTraceparent({ ...parent, spanId: newSpanId() });
  }
  return formatTraceparent({ traceId: newTraceId(), spanId: newSpanId(), flags: "01" });
}

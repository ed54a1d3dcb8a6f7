/**
 * A call as a span of its trace: which calls are recorded, and the span a
 * finished one leaves. Pure.
 *
 * A call its caller does not wait for (a fire-and-forget call, a state
 * trigger's call, a queue's delivery) is recorded with the attribute
 * {@link ASYNC_ATTRIBUTE} `true` when it has a parent: it may start after
 * its parent's span ended or outlast it, and a reader (the console's trace
 * page, `engine::traces::get`) can tell such a child from one that overran.
 * OpenTelemetry says the same with a span link or a CONSUMER span; the
 * attribute is what our span format carries.
 *
 * @module
 */
import type { Invocation, Outcome } from "./invocations.ts";
import type { FunctionInfo } from "./registry/functions.ts";
import type { Span } from "./observability/traces.ts";

/** The attribute of a span whose call its caller did not wait for. */
export const ASYNC_ATTRIBUTE = "engine.call.async";

/** One object for every async span: recording one allocates nothing more. */
const ASYNC_ATTRIBUTES: Readonly<Record<string, unknown>> = Object.freeze({
  [ASYNC_ATTRIBUTE]: true,
});

/**
 * Whether a call is a span, and how: `false`, `true`, or `"async"` for a
 * recorded call its caller does not wait for (`trace: "async"` on the
 * request). Not every call is a span: not the engine's own event deliveries
 * (`trace: false`), nor the log calls and listeners marked `internal`, nor
 * calls without a trace context to built-in workers (the CLI's and the
 * console's reads), as in the reference.
 */
export function isTraced(
  trace: boolean | "async" | undefined,
  targetKind: "websocket" | "builtin",
  info: FunctionInfo,
  hasParent: boolean,
): boolean | "async" {
  if (trace === false) return false;
  if (info.metadata?.internal === true) return false;
  if (!hasParent && targetKind === "builtin") return false;
  return trace === "async" ? "async" : true;
}

/** The span of call `inv`, ended with `outcome` at `now`; `worker` names who ran it, if known. */
export function callSpan(
  inv: Invocation,
  worker: string | undefined,
  outcome: Outcome,
  now = Date.now(),
): Span {
  const span: Span = {
    traceId: inv.traceId,
    spanId: inv.spanId,
    kind: "call",
    name: inv.functionId,
    functionId: inv.functionId,
    start: inv.start,
    durationMs: now - inv.start,
    status: outcome.ok ? "ok" : "error",
  };
  if (inv.parentSpanId) {
    span.parentSpanId = inv.parentSpanId;
    // Shared and frozen: a store that changes attributes (redaction) makes its own copy.
    if (inv.traced === "async") span.attributes = ASYNC_ATTRIBUTES as Record<string, unknown>;
  }
  if (worker !== undefined) span.worker = worker;
  if (!outcome.ok) span.error = outcome.error;
  return span;
}

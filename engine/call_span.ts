/**
 * A call as a span of its trace: which calls are recorded, and the span a
 * finished one leaves. Pure.
 *
 * @module
 */
import type { Invocation, Outcome } from "./invocations.ts";
import type { FunctionInfo } from "./registry/functions.ts";
import type { Span } from "./observability/traces.ts";

/**
 * Not every call is a span: not the engine's own event deliveries (`trace:
 * false`), nor the log calls and listeners marked `internal`, nor calls
 * without a trace context to built-in workers (the CLI's and the console's
 * reads), as in the reference.
 */
export function isTraced(
  trace: boolean | undefined,
  targetKind: "websocket" | "builtin",
  info: FunctionInfo,
  hasParent: boolean,
): boolean {
  if (trace === false) return false;
  if (info.metadata?.internal === true) return false;
  return hasParent || targetKind !== "builtin";
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
  if (inv.parentSpanId) span.parentSpanId = inv.parentSpanId;
  if (worker !== undefined) span.worker = worker;
  if (!outcome.ok) span.error = outcome.error;
  return span;
}

/**
 * Which call a log line belongs to, for workers whose logs arrive apart
 * from their connection (the npm SDK's telemetry socket).
 *
 * @module
 */
import type { Engine } from "./core.ts";

/** How many of the newest spans {@linkcode callOfTrace} looks through. */
const RECENT_SPANS = 2_000;

/**
 * The worker and function of the call a log line of trace `traceId` was
 * written in: the call whose span is the parent of the log's span `spanId`
 * once that span is known, else the one call of a connected worker (not a
 * built-in) in the trace, in flight or ended, if there is exactly one.
 */
export function callOfTrace(
  engine: Engine,
  traceId: string,
  spanId?: string,
): { worker: string; functionId: string } | undefined {
  // The latest spans only: a log line arrives within moments of its call, and a scan of the
  // whole store for every log line of a chatty worker would cost more than the log itself.
  const spans = engine.traces.ring.newest(RECENT_SPANS).filter((s) => s.traceId === traceId);
  const parent = spanId && spans.find((s) => s.spanId === spanId)?.parentSpanId;
  const builtins = new Set<string>();
  for (const w of engine.workers.values()) if (w.kind === "builtin") builtins.add(w.name);
  const calls = new Map<string, { worker: string; functionId: string }>();
  for (const inv of engine.invocations.ofTrace(traceId)) {
    const worker = engine.workers.get(inv.target);
    if (worker && !builtins.has(worker.name)) {
      calls.set(inv.spanId, { worker: worker.name, functionId: inv.functionId });
    }
  }
  for (const s of spans) {
    if (s.kind === "call" && s.worker && s.functionId && !builtins.has(s.worker)) {
      calls.set(s.spanId, { worker: s.worker, functionId: s.functionId });
    }
  }
  if (parent && calls.has(parent)) return calls.get(parent);
  return calls.size === 1 ? calls.values().next().value : undefined;
}

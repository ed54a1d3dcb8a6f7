/**
 * W3C trace context (`traceparent: 00-<trace-id>-<parent-id>-<flags>`).
 *
 * @module
 */

export interface TraceContext {
  traceId: string;
  spanId: string;
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function parseTraceparent(value: string | undefined | null): TraceContext | undefined {
  if (!value) return undefined;
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m || m[1] === "ff") return undefined;
  const traceId = m[2]!;
  const spanId = m[3]!;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags: m[4]! };
}

export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

// Every routed call needs fresh ids: random bytes are drawn in blocks, so one
// `getRandomValues` call serves hundreds of calls (it was a tenth of the
// engine's CPU time per call when drawn one id at a time).
const pool = new Uint8Array(4096);
let used = pool.length;

/** `bytes` random bytes as lower-case hex. */
export function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let out = "";
  for (let i = used; i < used + bytes; i++) out += HEX[pool[i]!];
  used += bytes;
  return out;
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

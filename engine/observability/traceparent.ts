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

/**
 * Whether `value` is a traceparent in canonical form (lower-case, no
 * surrounding space) with ids that are not all zeros: one pass over its 55
 * characters, for the contexts the engine and the SDKs write themselves on
 * every call. Anything else goes through the regular expression.
 */
function canonical(value: string): boolean {
  if (value.length !== 55) return false;
  let traceNonZero = false;
  let spanNonZero = false;
  for (let i = 0; i < 55; i++) {
    const c = value.charCodeAt(i);
    // `vv-<32 hex>-<16 hex>-ff`: the dashes are at 2, 35 and 52.
    if (i === 2 || i === 35 || i === 52) {
      if (c !== 45) return false; // "-"
      continue;
    }
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false; // 0-9, a-f
    if (c !== 48) {
      if (i > 2 && i < 35) traceNonZero = true;
      else if (i > 35 && i < 52) spanNonZero = true;
    }
  }
  return traceNonZero && spanNonZero && !value.startsWith("ff");
}

export function parseTraceparent(value: string | undefined | null): TraceContext | undefined {
  if (!value) return undefined;
  if (canonical(value)) {
    return { traceId: value.slice(3, 35), spanId: value.slice(36, 52), flags: value.slice(53) };
  }
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

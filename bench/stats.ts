/** Percentiles and formatting for benchmark results. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

/** Summarises latencies given in milliseconds. */
export function summarize(samplesMs: number[]): LatencySummary {
  const s = [...samplesMs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), mean };
}

/**
 * The median of each field in `keys` across `runs`, field by field (of an
 * even count, the upper middle one): for a measure repeated in rounds.
 */
export function medians<K extends PropertyKey, T extends Record<K, number>>(
  runs: readonly T[],
  keys: readonly K[],
): Record<K, number> {
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return Object.fromEntries(keys.map((k) => [k, mid(runs.map((r) => r[k]))])) as Record<K, number>;
}

export const fmtMs = (ms: number) =>
  ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
export const fmtRate = (r: number) => `${Math.round(r).toLocaleString("en-US")}/s`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

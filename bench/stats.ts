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

export const fmtMs = (ms: number) =>
  ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
export const fmtRate = (r: number) => `${Math.round(r).toLocaleString("en-US")}/s`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/**
 * What a throughput target leaves the engine: CPU time per call of every
 * process, side by side with the baseline's, and the engine's share of the
 * machine's CPU at the target rate. On two cores a rate of R calls/s gives
 * all processes together at most 2 s / R of CPU per call; what the other
 * processes (load generator, worker, caller) take of it is measured, so the
 * rest is the most the engine may spend, with both cores busy all the time.
 *
 * @module
 */
import { fmtRate } from "./stats.ts";

/** One process's CPU time per call (µs) on each side; undefined where the side has none. */
export interface CpuRow {
  process: string;
  baseline: number | undefined;
  engine: number | undefined;
}

export interface Budget {
  rows: CpuRow[];
  /** The baseline's rate (calls or requests per second). */
  baselineRate: number;
  /** The target: the engine at least this share of the baseline's rate. */
  share: number;
  /** "call" or "request". */
  unit: string;
  cores?: number;
}

const us = (v: number | undefined) => v === undefined ? "" : `${v.toFixed(1)} µs`;
const sum = (xs: (number | undefined)[]) => xs.reduce<number>((a, b) => a + (b ?? 0), 0);

/** The table and the sentence on what the target leaves the engine (the row named "engine"). */
export function budgetMarkdown(b: Budget): string {
  const cores = b.cores ?? navigator.hardwareConcurrency;
  const table = `| process | baseline | through the engine |\n|---|---|---|\n` +
    b.rows.map((r) => `| ${r.process} | ${us(r.baseline)} | ${us(r.engine)} |`).join("\n") +
    `\n| all | ${us(sum(b.rows.map((r) => r.baseline)))} | ${
      us(sum(b.rows.map((r) => r.engine)))
    } |`;
  const rate = b.share * b.baselineRate;
  const all = (cores * 1e6) / rate;
  const engine = b.rows.find((r) => r.process === "engine")?.engine ?? 0;
  const others = sum(b.rows.map((r) => r.engine)) - engine;
  const left = all - others;
  return `CPU time per ${b.unit} (user + system, all threads):\n\n${table}\n\n` +
    `At the target, ${b.share} × the baseline's ${fmtRate(b.baselineRate)} = ${fmtRate(rate)}, ` +
    `${cores} cores hold ${us(all)} of CPU per ${b.unit} for all processes together. ` +
    `The others take ${us(others)} of it now, which leaves the engine at most ${
      left > 0 ? us(left) : "nothing"
    } per ${b.unit} (with every core busy all the time); it takes ${us(engine)}.`;
}

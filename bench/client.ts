/** Runs `load_client.ts` as its own process and returns its figures. */
import { run } from "./procs.ts";
import type { LatencySummary } from "./stats.ts";

export interface ClientResult {
  seq: LatencySummary;
  conc?: { calls: number; perSecond: number };
  sweep: Record<string, LatencySummary>;
  /** The caller's own CPU time over the sequential and concurrent runs. */
  cpuMs?: { user: number; system: number };
  /** The calls those runs made, warm-up included. */
  calls?: number;
}

export async function runClient(
  args: string[],
  env: Record<string, string> = {},
): Promise<ClientResult> {
  const text = await run(
    Deno.execPath(),
    ["run", "--allow-all", "bench/load_client.ts", ...args],
    { BENCH_SIZES: "", ...env },
  );
  return JSON.parse(text.trim().split("\n").pop()!);
}

/** The median of `values` (the middle of an odd count, the lower middle of an even one). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

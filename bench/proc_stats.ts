/** CPU time and resident memory of a process, from `/proc/<pid>/`. */

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User and system CPU time the process has used so far, in ms. */
export async function cpuTimeMs(pid: number): Promise<{ user: number; system: number }> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start at ") ".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const tick = 1000 / TICKS_PER_SECOND;
  return { user: Number(fields[11]) * tick, system: Number(fields[12]) * tick };
}

/** Resident set size (VmRSS) in KiB. */
export async function rssKb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/** `work`'s result and the CPU time (user + system, ms) each of `pids` spent while it ran. */
export async function cpuDuring<T>(
  pids: readonly number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: number[] }> {
  const total = async (pid: number) => {
    const t = await cpuTimeMs(pid);
    return t.user + t.system;
  };
  const before = await Promise.all(pids.map(total));
  const result = await work();
  const after = await Promise.all(pids.map(total));
  return { result, cpuMs: after.map((a, i) => a - before[i]!) };
}

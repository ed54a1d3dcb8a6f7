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

/** The machine and its load, written next to every figure. */

/** CPU, cores, memory, Deno version. */
export async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.*)/)?.[1] ??
    "unknown CPU";
  return `${cpu}, ${navigator.hardwareConcurrency} cores, ${
    (Deno.systemMemoryInfo().total / 2 ** 30).toFixed(0)
  } GiB; Deno ${Deno.version.deno}, ${Deno.build.os}`;
}

/** The 1-minute load average (other engineers' test runs share these cores). */
export async function loadAverage(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}

/** One line for the head of a section: date, machine, load before and after. */
export async function conditions(loadBefore: number, smoke: boolean): Promise<string> {
  return `Run on ${
    new Date().toISOString().slice(0, 16).replace("T", " ")
  } UTC, ${await machine()}. ` +
    `Load average ${loadBefore.toFixed(2)} before, ${(await loadAverage()).toFixed(2)} after.` +
    (smoke ? " **Smoke run: short durations, figures are indicative only.**" : "");
}

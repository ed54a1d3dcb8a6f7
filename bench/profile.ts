/**
 * `deno run -A bench/profile.ts [--smoke] [--out FILE] [--bytes N]`: where
 * the time of one routed call goes. The engine, the echo worker and the
 * calling process all run under `deno run --cpu-prof` while the caller keeps
 * 64 calls in flight; each profile's busy time is divided by the calls
 * made. Writes the `profile` section of BENCHMARKS.md (or FILE).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { run, spawn } from "./procs.ts";
import type { ClientResult } from "./client.ts";
import { conditions, loadAverage } from "./machine.ts";
import { startEngine } from "./servers.ts";
import { writeSection } from "./sections.ts";
import { monotonicUs, readProfile, type SelfTime, summarizeProfile } from "./cpuprofile.ts";
import { fmtRate } from "./stats.ts";
import { cpuTimeMs } from "./proc_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    out: { type: "string", default: "BENCHMARKS.md" },
    bytes: { type: "string", default: "100" },
    top: { type: "string", default: "12" },
  },
});
const smoke = values.smoke!;
const seconds = smoke ? 1 : 8;
const seq = 200;
const top = Number(values.top);

const load = await loadAverage();
const dirs = {
  engine: await Deno.makeTempDir({ prefix: "prof-engine-" }),
  worker: await Deno.makeTempDir({ prefix: "prof-worker-" }),
  caller: await Deno.makeTempDir({ prefix: "prof-caller-" }),
};
const prof = (dir: string) => ["--cpu-prof", `--cpu-prof-dir=${dir}`];
let result: ClientResult & { cpuMs: { user: number; system: number } };
const cpu: Record<string, { user: number; system: number }> = {};
let window = { from: 0, to: Infinity };
// Every process started is stopped on every path, the last started first.
const procs = new AsyncDisposableStack();
try {
  const engine = procs.use(await startEngine({ denoFlags: prof(dirs.engine) }));
  const worker = procs.use(spawn(
    ["run", "--allow-all", ...prof(dirs.worker), "bench/echo_worker.ts"],
    { ENGINE_URL: engine.url },
  ));
  const pids = { engine: engine.engine.child.pid, worker: worker.child.pid };
  await worker.waitFor(/^ready$/);
  const before = { engine: await cpuTimeMs(pids.engine), worker: await cpuTimeMs(pids.worker) };
  window = { from: await monotonicUs(), to: Infinity };
  const text = await run(Deno.execPath(), [
    "run",
    "--allow-all",
    ...prof(dirs.caller),
    "bench/load_client.ts",
    "engine",
    engine.url,
    "bench::echo",
  ], {
    BENCH_SEQ: String(seq),
    BENCH_SECONDS: String(seconds),
    BENCH_SIZES: "",
    BENCH_BYTES: values.bytes!,
  });
  result = JSON.parse(text.trim().split("\n").pop()!);
  window.to = await monotonicUs();
  for (const name of ["engine", "worker"] as const) {
    const after = await cpuTimeMs(pids[name]);
    cpu[name] = {
      user: after.user - before[name].user,
      system: after.system - before[name].system,
    };
  }
  cpu.caller = result.cpuMs;
} finally {
  await procs.disposeAsync();
}
// Warm-up and sequential calls count too: the profiles cover the whole run.
const calls = result.calls!;
const us = (ms: number) => `${((ms * 1000) / calls).toFixed(1)} µs`;
const sections: string[] = [];
const summaries: Record<string, ReturnType<typeof summarizeProfile>> = {};
for (const [name, dir] of Object.entries(dirs)) {
  summaries[name] = summarizeProfile(await readProfile(dir), window);
  await Deno.remove(dir, { recursive: true });
}
const overview = Object.entries(summaries).map(([name, s]) =>
  `| ${name} | ${us(cpu[name]!.user)} + ${us(cpu[name]!.system)} | ${us(s.busyMs)} | ${
    s.areas.slice(0, 4).map((a) => `${a.area} ${us(a.ms)}`).join("; ")
  } |`
);
for (const [name, s] of Object.entries(summaries)) {
  sections.push(
    `#### ${name}: top ${top} functions by self time (per call)\n\n| function | where | area | per call | share |\n|---|---|---|---|---|\n` +
      s.functions.slice(0, top).map((f: SelfTime) =>
        `| \`${f.name}\` | ${f.where} | ${f.area} | ${us(f.ms)} | ${
          ((100 * f.ms) / s.busyMs).toFixed(1)
        }% |`
      ).join("\n"),
  );
}

const markdown = `## Where the time of one routed call goes (CPU profile)

${await conditions(load, smoke)}

\`deno run -A bench/profile.ts\`: the engine, the echo worker and the caller each run under
\`deno run --cpu-prof\` while the caller makes ${values.bytes}-byte calls, 64 in flight, for ${seconds} s
(${result.conc!.calls.toLocaleString("en-US")} calls, ${
  fmtRate(result.conc!.perSecond)
} with the profilers on). CPU time is the process's user and
system time over the run (\`/proc/<pid>/stat\`, all threads: Deno's I/O and the kernel's TCP work
included); busy time is the sampled time its JavaScript thread was not idle while the caller ran (start-up
and shutdown left out). Both are divided by the
${calls.toLocaleString("en-US")} calls made.

| process | CPU per call: user + system | sampled JS thread busy per call | largest areas (per call) |
|---|---|---|---|
${overview.join("\n")}

${sections.join("\n\n")}
`;
await writeSection(values.out!, "profile", markdown);
console.log(markdown);

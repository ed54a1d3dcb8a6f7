/**
 * `deno task bench [--smoke] [--out FILE] [--only core,state,http,queue]`: measures
 * the engine against baselines taken in the same run and writes its sections
 * (`core`, `state`, `http`, `queue`) of BENCHMARKS.md (or FILE); `--only`
 * rewrites the sections it names and keeps the others. Every figure is
 * measured between separate processes on loopback; ratios, not absolute
 * numbers, carry the targets.
 */
import { parseArgs } from "node:util";
import { run, spawn } from "./procs.ts";
import { cpuDuring } from "./proc_stats.ts";
import { budgetMarkdown } from "./cpu_budget.ts";
import { type EngineProc, startEngine as startEngineIn } from "./servers.ts";
import { fmtMs, fmtRate, type LatencySummary, medians, ratio } from "./stats.ts";
import { httpSection } from "./http.ts";
import { writeHeadAndSections } from "./sections.ts";
import { queueSection } from "./queue.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    out: { type: "string" },
    only: { type: "string" },
  },
});
const smoke = values.smoke!;
const SECTIONS = ["core", "state", "http", "queue"];
const only = new Set((values.only ?? SECTIONS.join(",")).split(",").map((s) => s.trim()));
for (const name of only) {
  if (!SECTIONS.includes(name)) {
    console.error(`--only: unknown section "${name}": expected some of ${SECTIONS.join(", ")}`);
    Deno.exit(2);
  }
}
const out = values.out ?? "BENCHMARKS.md";
const clientEnv = smoke
  ? { BENCH_SEQ: "200", BENCH_SECONDS: "1", BENCH_SIZES: "100,16384,1048576" }
  : { BENCH_SEQ: "3000", BENCH_SECONDS: "10" };

interface ClientResult {
  seq: LatencySummary;
  conc?: { calls: number; perSecond: number };
  sweep: Record<string, LatencySummary>;
  /** The caller's own CPU time over the sequential and concurrent calls. */
  cpuMs: { user: number; system: number };
  /** The sequential and concurrent calls made (warm-up included): what `cpuMs` covers. */
  calls: number;
}

/**
 * A client run without the payload sweep, with the CPU time per call (µs) of
 * the processes `pids` and of the caller itself (the last figure).
 */
async function clientWithCpu(
  args: string[],
  pids: number[],
  env: Record<string, string> = {},
): Promise<{ result: ClientResult; cpuUs: number[] }> {
  const { result, cpuMs } = await cpuDuring(pids, () => client(args, { ...env, BENCH_SIZES: "" }));
  const perCall = (ms: number) => (ms * 1000) / result.calls;
  return {
    result,
    cpuUs: [...cpuMs.map(perCall), perCall(result.cpuMs.user + result.cpuMs.system)],
  };
}

async function client(args: string[], env: Record<string, string> = {}): Promise<ClientResult> {
  const text = await run(Deno.execPath(), ["run", "--allow-all", "bench/load_client.ts", ...args], {
    ...clientEnv,
    ...env,
  });
  return JSON.parse(text.trim().split("\n").pop()!);
}

/** The engine with engine-state (SQLite in its temp folder) and the workers of `extraConfig`. */
function startEngine(extraConfig = "", env: Record<string, string> = {}): Promise<EngineProc> {
  return startEngineIn({
    env,
    workersYaml: (dir) =>
      `  - name: engine-state\n    config:\n      adapter: sqlite\n      path: ${dir}/state.db\n${extraConfig}`,
  });
}

/** This run's sections by name; the ones not run keep what BENCHMARKS.md had. */
const sections = new Map<string, string>();
const ranAt = `Run on ${
  new Date().toISOString().slice(0, 16).replace("T", " ")
} UTC by \`deno task bench${smoke ? " --smoke" : ""}\`${
  smoke ? " (**smoke run: short durations, figures indicative only**)" : ""
}.`;

/** A section's markdown (title line first) with when it ran and its targets under the title. */
function withTargets(markdown: string, checks: string[]): string {
  const [title, ...rest] = markdown.split("\n");
  const targets = checks.length === 0
    ? ""
    : `| target | measured | |\n|---|---|---|\n${checks.join("\n")}\n\n`;
  return `${title}\n\n${ranAt}\n\n${targets}${rest.join("\n").trimStart()}`;
}

const checkRow = (name: string, ok: boolean, detail: string) =>
  `| ${name} | ${detail} | ${ok ? "met" : "**missed**"} |`;

if (only.has("core") || only.has("state")) {
  // The direct echo is the core section's baseline only: the state section compares with the
  // routed echo call, so `--only state` does not start it.
  // Every process started is stopped on every path, the last started first.
  const procs = new AsyncDisposableStack();
  try {
    const echo = only.has("core")
      ? procs.use(spawn(["run", "--allow-all", "bench/echo_server.ts"]))
      : undefined;
    const echoUrl = echo && `ws://127.0.0.1:${(await echo.waitFor(/port=(\d+)/))[1]}`;
    const { url, engine } = procs.use(await startEngine());
    const worker = procs.use(
      spawn(["run", "--allow-all", "bench/echo_worker.ts"], { ENGINE_URL: url }),
    );
    await worker.waitFor(/^ready$/);
    const direct = echo === undefined || echoUrl === undefined
      ? undefined
      : { url: echoUrl, ...await clientWithCpu(["echo", echoUrl], [echo.child.pid]) };
    const routedRun = await clientWithCpu(
      ["engine", url, "bench::echo"],
      [engine.child.pid, worker.child.pid],
    );
    const routed = routedRun.result;
    /** The same call on an engine and echo worker of their own, with `engineEnv` and `sdkEnv`. */
    const routedOn = async (engineEnv: Record<string, string>, sdkEnv: Record<string, string>) => {
      await using other = await startEngine("", engineEnv);
      await using otherWorker = spawn(["run", "--allow-all", "bench/echo_worker.ts"], {
        ENGINE_URL: other.url,
        ...engineEnv,
        ...sdkEnv,
      });
      await otherWorker.waitFor(/^ready$/);
      return await clientWithCpu(
        ["engine", other.url, "bench::echo"],
        [other.engine.child.pid, otherWorker.child.pid],
        sdkEnv,
      );
    };
    // In the same run: the opt-in native transport, and SDKs that send one frame per message.
    const nativeRun = direct === undefined
      ? undefined
      : await routedOn({ ENGINE_TRANSPORT: "native" }, {});
    const singleRun = direct === undefined ? undefined : await routedOn({}, { BENCH_BATCH: "0" });
    if (direct && nativeRun && singleRun) {
      const base = direct.result;
      // The sweep runs on its own: its large payloads would swamp the CPU figures above.
      const sweepOnly = { BENCH_SECONDS: "0" };
      const baseSweep = (await client(["echo", direct.url], sweepOnly)).sweep;
      const routedSweep = (await client(["engine", url, "bench::echo"], sweepOnly)).sweep;
      // Sequential latency is mostly wake-ups here and drifts with the host's load: it is
      // measured again in alternating rounds, and the medians are compared.
      const seqOnly = { BENCH_SECONDS: "0", BENCH_SIZES: "" };
      const baseSeq: LatencySummary[] = [];
      const routedSeq: LatencySummary[] = [];
      for (let i = 0; i < (smoke ? 1 : 3); i++) {
        baseSeq.push((await client(["echo", direct.url], seqOnly)).seq);
        routedSeq.push((await client(["engine", url, "bench::echo"], seqOnly)).seq);
      }
      const b = medians(baseSeq, ["p50", "p99"]);
      const r = medians(routedSeq, ["p50", "p99"]);
      const rows = [
        `| sequential 100 B p50 | ${fmtMs(b.p50)} | ${fmtMs(r.p50)} | ${ratio(r.p50, b.p50)} |`,
        `| sequential 100 B p99 | ${fmtMs(b.p99)} | ${fmtMs(r.p99)} | ${ratio(r.p99, b.p99)} |`,
        `| 64 in flight, calls/s | ${fmtRate(base.conc!.perSecond)} | ${
          fmtRate(routed.conc!.perSecond)
        } | ${ratio(routed.conc!.perSecond, base.conc!.perSecond)} |`,
        `| 64 in flight, calls/s, \`ENGINE_TRANSPORT=native\` | ${
          fmtRate(base.conc!.perSecond)
        } | ${fmtRate(nativeRun.result.conc!.perSecond)} | ${
          ratio(nativeRun.result.conc!.perSecond, base.conc!.perSecond)
        } |`,
        `| 64 in flight, calls/s, one frame per message (\`batchFrames: false\`) | ${
          fmtRate(base.conc!.perSecond)
        } | ${fmtRate(singleRun.result.conc!.perSecond)} | ${
          ratio(singleRun.result.conc!.perSecond, base.conc!.perSecond)
        } |`,
      ];
      const sweepRows = Object.keys(routedSweep).map((size) => {
        const e = baseSweep[size]!;
        const r = routedSweep[size]!;
        return `| ${Number(size).toLocaleString("en-US")} B | ${fmtMs(e.p50)} / ${fmtMs(e.p99)} | ${
          fmtMs(r.p50)
        } / ${fmtMs(r.p99)} |`;
      });
      const checks = [
        checkRow("routed p50 ≤ 2.0× echo", r.p50 <= 2 * b.p50, ratio(r.p50, b.p50)),
        checkRow(
          "64 in flight ≥ 0.35× echo",
          routed.conc!.perSecond >= 0.35 * base.conc!.perSecond,
          ratio(routed.conc!.perSecond, base.conc!.perSecond),
        ),
        checkRow(
          "64 in flight ≥ 0.35× echo, `ENGINE_TRANSPORT=native` (opt-in)",
          nativeRun.result.conc!.perSecond >= 0.35 * base.conc!.perSecond,
          ratio(nativeRun.result.conc!.perSecond, base.conc!.perSecond),
        ),
      ];
      const worst = Object.entries(routedSweep).filter(([s]) => Number(s) < 1048576).map(([, v]) =>
        v.p99
      );
      checks.push(checkRow(
        "no p99 above 10 ms below 1 MB",
        worst.every((p) => p <= 10),
        fmtMs(Math.max(...worst)),
      ));
      sections.set(
        "core",
        withTargets(
          "## A routed call (worker process → engine → worker process → back)\n\n" +
            "Baseline: a direct WebSocket echo between two processes, same client code, same run. " +
            `Sequential: medians of ${
              smoke ? 1 : 3
            } alternating rounds (echo, engine) of ${clientEnv.BENCH_SEQ} calls each; ` +
            "64 in flight and the sweep: one run each.\n\n" +
            "| measure | direct echo | through the engine | ratio |\n|---|---|---|---|\n" +
            rows.join("\n") +
            "\n\n" + budgetMarkdown({
              rows: [
                { process: "engine", baseline: undefined, engine: routedRun.cpuUs[0] },
                { process: "echo server", baseline: direct.cpuUs[0], engine: undefined },
                { process: "answering worker", baseline: undefined, engine: routedRun.cpuUs[1] },
                { process: "caller", baseline: direct.cpuUs[1], engine: routedRun.cpuUs[2] },
              ],
              baselineRate: base.conc!.perSecond,
              share: 0.35,
              unit: "call",
            }) +
            " The echo server receives and sends one message per call on the same transport " +
            "(`Deno.serve` and `Deno.upgradeWebSocket`); the engine receives and sends two." +
            "\n\nWith `ENGINE_TRANSPORT=native` (the engine's own RFC 6455 server over " +
            "`Deno.listen`, opt-in), CPU time per call at 64 in flight: engine " +
            `${nativeRun.cpuUs[0]!.toFixed(1)} µs, answering worker ${
              nativeRun.cpuUs[1]!.toFixed(1)
            } µs, caller ${nativeRun.cpuUs[2]!.toFixed(1)} µs.` +
            "\n\nThe SDKs and the engine send the frames of one event-loop turn as one message " +
            "(`engine.batch.v1`, README.md), as a NATS client writes many messages at once; the " +
            "direct echo sends one message per call. With our SDKs told `batchFrames: false` (one " +
            "frame per message, as the npm iii-sdk sends), CPU time per call at 64 in flight: " +
            `engine ${singleRun.cpuUs[0]!.toFixed(1)} µs, answering worker ${
              singleRun.cpuUs[1]!.toFixed(1)
            } µs, caller ${singleRun.cpuUs[2]!.toFixed(1)} µs.` +
            "\n\n### Payload sweep (p50 / p99)\n\n| payload | direct echo | through the engine |\n|---|---|---|\n" +
            sweepRows.join("\n"),
          checks,
        ),
      );
    }
    if (only.has("state")) {
      const set = await client(["engine", url, "state::set"], { BENCH_PAYLOAD: "state-set" });
      const get = await client(["engine", url, "state::get"], { BENCH_PAYLOAD: "state-get" });
      const checks = [
        checkRow(
          "state::set at 64 in flight ≥ 0.7× echo call",
          set.conc!.perSecond >= 0.7 * routed.conc!.perSecond,
          ratio(set.conc!.perSecond, routed.conc!.perSecond),
        ),
        checkRow(
          "state::get at 64 in flight ≥ 0.7× echo call",
          get.conc!.perSecond >= 0.7 * routed.conc!.perSecond,
          ratio(get.conc!.perSecond, routed.conc!.perSecond),
        ),
      ];
      sections.set(
        "state",
        withTargets(
          "## State worker (SQLite) through the engine\n\nBaseline: the routed echo call (`bench::echo`, the first row), same run.\n\n" +
            "| call | sequential p50 | p99 | 64 in flight | vs echo call |\n|---|---|---|---|---|\n" +
            [["bench::echo (baseline)", routed], ["state::set", set], ["state::get", get]].map(
              ([name, r]) => {
                const x = r as ClientResult;
                return `| ${name} | ${fmtMs(x.seq.p50)} | ${fmtMs(x.seq.p99)} | ${
                  fmtRate(x.conc!.perSecond)
                } | ${ratio(x.conc!.perSecond, routed.conc!.perSecond)} |`;
              },
            ).join("\n"),
          checks,
        ),
      );
    }
  } finally {
    await procs.disposeAsync();
  }
}

if (only.has("http")) {
  const h = await httpSection({ smoke, startEngine });
  sections.set("http", withTargets(h.markdown, h.checks));
}

if (only.has("queue")) {
  const q = await queueSection({ smoke, startEngine });
  sections.set("queue", withTargets(q.markdown, q.checks));
}

const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.*)/)?.[1] ??
  "unknown CPU";
const machine =
  `${cpu}, ${navigator.hardwareConcurrency} cores, ${
    (Deno.systemMemoryInfo().total / 2 ** 30).toFixed(0)
  } GiB; ` +
  `Deno ${Deno.version.deno}, ${Deno.build.os}`;
const head = `# Benchmarks

Machine: ${machine}. Every process talks over loopback; baselines are measured in the same run, so
ratios carry the meaning (these machines are noisy). Each section says when it ran, and by which
command, and lists its targets; \`deno task bench --only core,state,http,queue\` reruns some of its
sections and keeps the others.
`;
await writeHeadAndSections(
  out,
  head,
  SECTIONS.map((name) => [name, sections.get(name)]),
);
console.log([...sections.values()].join("\n\n"));

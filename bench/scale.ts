/**
 * `deno run -A bench/scale.ts [--smoke] [--out FILE] [--charts DIR]`: how the
 * cost of routing grows with the engine's work. Curves, each over several
 * points and drawn as SVG charts in DIR (default `bench/charts`):
 *
 * - a routed call (p50, 64-in-flight calls/s) against the number of
 *   connected idle workers, then against the number of registered
 *   functions spread over those workers (1,000 connections and 10,000
 *   functions on one engine at the last point);
 * - an HTTP request through engine-http (p50, one connection) against the
 *   number of routes;
 * - the engine's resident memory against idle connections and functions.
 *
 * Writes the `scale` section of BENCHMARKS.md (or FILE).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type Proc, spawn, spawnCommand } from "./procs.ts";
import { median, runClient } from "./client.ts";
import { conditions, loadAverage } from "./machine.ts";
import { rssKb } from "./proc_stats.ts";
import { startEngine } from "./servers.ts";
import { waitForRoute, wrk } from "./http.ts";
import { scaleReport } from "./scale_report.ts";
import { writeSection } from "./sections.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    out: { type: "string", default: "BENCHMARKS.md" },
    charts: { type: "string", default: "bench/charts" },
  },
});
const smoke = values.smoke!;
const points = smoke
  ? { workers: [1, 10, 100], functions: [10, 100, 1000], routes: [1, 10, 100] }
  : {
    workers: [1, 10, 100, 1000],
    functions: [10, 100, 1000, 10_000],
    routes: [1, 10, 100, 1000, 10_000],
  };
const clientEnv = smoke
  ? { BENCH_SEQ: "100", BENCH_SECONDS: "0.5" }
  : { BENCH_SEQ: "2000", BENCH_SECONDS: "2" };
/** Caller runs per point; each figure is their median. */
const callRuns = smoke ? 1 : 3;
const wrkSeconds = smoke ? 1 : 4;
/** Time for the engine's heap to settle after a change, before reading its RSS. */
const settleMs = smoke ? 200 : 1000;

export interface CallPoint {
  n: number;
  p50: number;
  p99: number;
  rate: number;
}

export interface ScaleResults {
  memory: { connections: number; rssKb: number }[];
  functionsRss: { functions: number; rssKb: number }[];
  workers: CallPoint[];
  functions: (CallPoint & { registerMs: number; added: number; listMs: number })[];
  /**
   * The smallest points measured again at the end (functions unregistered, then connections
   * closed, back down to them): against drift, flatness compares the largest point with the
   * mean of both measurements of the smallest.
   */
  again: { functions?: CallPoint; workers?: CallPoint };
  workersListMs: number;
  routes: { n: number; p50: number; p99: number; readyMs: number }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startSwarm(url: string): Proc {
  return spawnCommand(Deno.execPath(), ["run", "--allow-all", "bench/swarm.ts", url], {}, {
    stdin: true,
  });
}

let tags = 0;

/** Sends a swarm command and returns the `ms=` of its answer. */
async function command(swarm: Proc, line: string): Promise<number> {
  const tag = `#${++tags}`;
  await swarm.writeLine(`${line} ${tag}`);
  const answer = (await swarm.waitFor(new RegExp(`^${tag} .*`), 120_000))[0];
  if (answer.includes(" error ")) throw new Error(`swarm: ${answer}`);
  return Number(/ms=([\d.]+)/.exec(answer)![1]);
}

async function measureCall(url: string, n: number): Promise<CallPoint> {
  const runs = [];
  for (let i = 0; i < callRuns; i++) {
    runs.push(await runClient(["engine", url, "bench::echo"], clientEnv));
  }
  return {
    n,
    p50: median(runs.map((r) => r.seq.p50)),
    p99: median(runs.map((r) => r.seq.p99)),
    rate: median(runs.map((r) => r.conc!.perSecond)),
  };
}

/** Memory: a fresh engine, idle connections added, then functions. */
async function memoryCurve(results: ScaleResults): Promise<void> {
  const procs = new AsyncDisposableStack();
  try {
    const engine = procs.use(await startEngine());
    const pid = engine.engine.child.pid;
    const swarm = procs.use(startSwarm(engine.url));
    await sleep(settleMs);
    results.memory.push({ connections: 0, rssKb: await rssKb(pid) });
    for (const n of points.workers) {
      await command(swarm, `connect ${n}`);
      await sleep(settleMs);
      results.memory.push({ connections: n, rssKb: await rssKb(pid) });
    }
    results.functionsRss.push({ functions: 0, rssKb: await rssKb(pid) });
    for (const f of points.functions) {
      await command(swarm, `register ${f}`);
      await sleep(settleMs);
      results.functionsRss.push({ functions: f, rssKb: await rssKb(pid) });
    }
  } finally {
    await procs.disposeAsync();
  }
}

/** Calls: an echo worker, idle connections added, then functions spread over them. */
async function callCurves(results: ScaleResults): Promise<void> {
  const procs = new AsyncDisposableStack();
  try {
    const engine = procs.use(await startEngine());
    const worker = procs.use(
      spawn(["run", "--allow-all", "bench/echo_worker.ts"], { ENGINE_URL: engine.url }),
    );
    const swarm = procs.use(startSwarm(engine.url));
    await worker.waitFor(/^ready$/);
    // Unmeasured: the engine's first calls run its code paths cold.
    await measureCall(engine.url, 0);
    for (const n of points.workers) {
      await command(swarm, `connect ${n}`);
      results.workers.push(await measureCall(engine.url, n));
    }
    let before = 0;
    for (const f of points.functions) {
      const registerMs = await command(swarm, `register ${f}`);
      const lists: number[] = [];
      for (let i = 0; i < 3; i++) {
        lists.push(await command(swarm, "list functions"));
      }
      const call = await measureCall(engine.url, f);
      results.functions.push({ ...call, registerMs, added: f - before, listMs: median(lists) });
      before = f;
    }
    const lists: number[] = [];
    for (let i = 0; i < 3; i++) lists.push(await command(swarm, "list workers"));
    results.workersListMs = median(lists);
    await command(swarm, `unregister ${points.functions[0]}`);
    results.again.functions = await measureCall(engine.url, points.functions[0]!);
    await command(swarm, `disconnect ${points.workers[0]}`);
    await sleep(settleMs);
    results.again.workers = await measureCall(engine.url, points.workers[0]!);
  } finally {
    await procs.disposeAsync();
  }
}

/** HTTP: one worker with n routes (restarted for each n), a request on the last route. */
async function routeCurve(results: ScaleResults): Promise<void> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  const procs = new AsyncDisposableStack();
  let worker: Proc | undefined;
  try {
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = '{"data":"${
        "x".repeat(89)
      }"}'\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    const engine = procs.use(
      await startEngine({
        workersYaml: "  - name: engine-http\n    config:\n      port: 0\n      host: 127.0.0.1\n",
      }),
    );
    const httpPort = (await engine.engine.waitFor(/Started worker engine-http .*"port":(\d+)/))[1];
    for (const n of points.routes) {
      await worker?.stop();
      const t0 = performance.now();
      worker = spawn(["run", "--allow-all", "bench/echo_worker.ts"], {
        ENGINE_URL: engine.url,
        BENCH_ROUTES: String(n),
        BENCH_ROUTE_OFFSET: "1",
      });
      await worker.waitFor(/^ready$/, 120_000);
      const url = `http://127.0.0.1:${httpPort}/bench/r${n}/x`;
      // engine-http takes its routes one at a time, each in O(routes): 10,000 take seconds.
      await waitForRoute(url, 180_000);
      const readyMs = performance.now() - t0;
      const r = await wrk(url, 1, wrkSeconds, script);
      results.routes.push({ n, p50: r.p50, p99: r.p99, readyMs });
    }
  } finally {
    await worker?.stop();
    await procs.disposeAsync();
    await Deno.remove(script);
  }
}

const load = await loadAverage();
const results: ScaleResults = {
  memory: [],
  functionsRss: [],
  workers: [],
  functions: [],
  workersListMs: NaN,
  routes: [],
  again: {},
};
await memoryCurve(results);
await callCurves(results);
await routeCurve(results);

const { markdown, charts } = scaleReport(results, {
  out: values.out!,
  chartsDir: values.charts!,
  conditions: await conditions(load, smoke),
  clientEnv,
  callRuns,
  wrkSeconds,
});
await Deno.mkdir(values.charts!, { recursive: true });
for (const [name, svg] of Object.entries(charts)) {
  await Deno.writeTextFile(`${values.charts}/${name}`, svg);
}
await writeSection(values.out!, "scale", markdown);
console.log(markdown);

/**
 * HTTP benchmark with wrk: a plain Deno.serve JSON echo against the same
 * POST through engine-http to a handler in a separate worker process.
 */
import { spawn } from "./procs.ts";
import type { EngineProc } from "./servers.ts";
import { fmtMs, fmtRate, medians, ratio } from "./stats.ts";
import { cpuDuring } from "./proc_stats.ts";
import { budgetMarkdown } from "./cpu_budget.ts";

interface Wrk {
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered over the run. */
  requests: number;
  /** wrk's own CPU time (user + system), ms. */
  cpuMs: number;
}

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

export async function wrk(
  url: string,
  connections: number,
  seconds: number,
  script: string,
): Promise<Wrk> {
  // Through bash, whose `times` reports the CPU time of the wrk it ran.
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      'wrk "$@"; s=$?; times >&2; exit $s',
      "bash",
      "-t",
      String(Math.min(2, connections)),
      "-c",
      String(connections),
      "-d",
      `${seconds}s`,
      "--latency",
      "-s",
      script,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} error responses from ${url}:\n${text}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]),
    p50: toMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? ""),
    p99: toMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? ""),
    requests: Number(/(\d+) requests in/.exec(text)?.[1]),
    cpuMs: childCpuMs(new TextDecoder().decode(out.stderr)),
  };
}

/** The children's user + system time from the output of bash's `times` (its last line). */
function childCpuMs(times: string): number {
  const last = times.trim().split("\n").pop() ?? "";
  const parts = [...last.matchAll(/(\d+)m([\d.]+)s/g)];
  if (parts.length !== 2) throw new Error(`Cannot read wrk's CPU time from: ${last}`);
  return parts.reduce((ms, m) => ms + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
}

/** The median rate, p50 and p99 of several runs, each on its own. */
const medianOf = (runs: Wrk[]) => medians(runs, ["rps", "p50", "p99"]);

/** Polls `url` with a small POST until it answers `status` (200: the route is live). */
export async function waitForRoute(url: string, timeoutMs = 15_000, status = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await fetch(url, {
      method: "POST",
      body: '{"data":"x"}',
      headers: { "content-type": "application/json" },
    });
    await r.body?.cancel();
    if (r.status === status) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`Route ${url} never answered ${status}`);
}

export async function httpSection(
  { smoke, startEngine }: {
    smoke: boolean;
    startEngine: (extra: string) => Promise<EngineProc>;
  },
): Promise<{ markdown: string; checks: string[] }> {
  const secs = smoke ? 1 : 8;
  const rounds = smoke ? 1 : 3;
  const roundSecs = smoke ? 1 : 4;
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    script,
    `wrk.method = "POST"\nwrk.body = '{"data":"${
      "x".repeat(89)
    }"}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  // Every process started is stopped on every path, the last started first.
  const procs = new AsyncDisposableStack();
  let extra: ReturnType<typeof spawn> | undefined;
  try {
    const plain = procs.use(spawn(["run", "--allow-all", "bench/plain_http.ts"]));
    const plainUrl = `http://127.0.0.1:${(await plain.waitFor(/port=(\d+)/))[1]}/bench/echo`;
    const { engine, url } = procs.use(
      await startEngine(
        "  - name: engine-http\n    config:\n      port: 0\n      host: 127.0.0.1\n",
      ),
    );
    const httpPort = (await engine.waitFor(/Started worker engine-http .*"port":(\d+)/))[1];
    const engineUrl = `http://127.0.0.1:${httpPort}/bench/echo`;
    const worker = procs.use(
      spawn(["run", "--allow-all", "bench/echo_worker.ts"], { ENGINE_URL: url, BENCH_ROUTES: "1" }),
    );
    await worker.waitFor(/^ready$/);
    await waitForRoute(engineUrl);
    await waitForRoute(plainUrl);
    const plainPid = plain.child.pid;
    const enginePids = [engine.child.pid, worker.child.pid];
    const { result: p64, cpuMs: plainCpu } = await cpuDuring(
      [plainPid],
      () => wrk(plainUrl, 64, secs, script),
    );
    const { result: e64, cpuMs: engineCpu } = await cpuDuring(
      enginePids,
      () => wrk(engineUrl, 64, secs, script),
    );
    const perPlain = (ms: number) => (ms * 1000) / p64.requests;
    const perEngine = (ms: number) => (ms * 1000) / e64.requests;
    const budget = budgetMarkdown({
      rows: [
        { process: "engine", baseline: undefined, engine: perEngine(engineCpu[0]!) },
        { process: "plain Deno.serve server", baseline: perPlain(plainCpu[0]!), engine: undefined },
        { process: "handler's worker", baseline: undefined, engine: perEngine(engineCpu[1]!) },
        { process: "wrk", baseline: perPlain(p64.cpuMs), engine: perEngine(e64.cpuMs) },
      ],
      baselineRate: p64.rps,
      share: 0.4,
      unit: "request",
    });
    // One connection: sequential latency is mostly wake-ups on these machines and drifts with
    // the host's load, so the two sides are measured alternately and the medians compared.
    const p1s: Wrk[] = [];
    const e1s: Wrk[] = [];
    for (let i = 0; i < rounds; i++) {
      p1s.push(await wrk(plainUrl, 1, roundSecs, script));
      e1s.push(await wrk(engineUrl, 1, roundSecs, script));
    }
    const p1 = medianOf(p1s);
    const e1 = medianOf(e1s);
    const levels = [8, 32, 128];
    const byLevel = [];
    for (const c of levels) {
      byLevel.push(
        [c, await wrk(plainUrl, c, secs, script), await wrk(engineUrl, c, secs, script)] as const,
      );
    }
    // One route against 1,000, alternately: a second worker adds 999 routes, is measured
    // with, then stops (its routes go with it) before the next one-route round.
    const oneRoute: Wrk[] = [];
    const thousand: Wrk[] = [];
    const probe = `http://127.0.0.1:${httpPort}/bench/r1000/x`;
    for (let i = 0; i < rounds; i++) {
      oneRoute.push(await wrk(engineUrl, 1, roundSecs, script));
      extra = spawn(["run", "--allow-all", "bench/echo_worker.ts"], {
        ENGINE_URL: url,
        BENCH_ROUTES: "1000",
        BENCH_ROUTE_OFFSET: "1",
      });
      await extra.waitFor(/^ready$/);
      await waitForRoute(probe);
      thousand.push(await wrk(engineUrl, 1, roundSecs, script));
      await extra.stop();
      extra = undefined;
      await waitForRoute(probe, 15_000, 404);
    }
    const e1r = medianOf(oneRoute);
    const e1k = medianOf(thousand);
    const markdown = "## HTTP: POST of 100 B JSON, echoed\n\n" +
      "Baseline: a plain `Deno.serve` handler echoing the JSON. Engine: `engine-http` → handler in a worker process → back. Load: `wrk`.\n\n" +
      "| measure | plain Deno.serve | through engine-http | ratio |\n|---|---|---|---|\n" +
      `| 64 connections, requests/s | ${fmtRate(p64.rps)} | ${fmtRate(e64.rps)} | ${
        ratio(e64.rps, p64.rps)
      } |\n` +
      `| 1 connection, p50 | ${fmtMs(p1.p50)} | ${fmtMs(e1.p50)} | ${ratio(e1.p50, p1.p50)} |\n` +
      `| 1 connection, p99 | ${fmtMs(p1.p99)} | ${fmtMs(e1.p99)} | ${ratio(e1.p99, p1.p99)} |\n` +
      byLevel.map(([c, p, e]) =>
        `| ${c} connections, p50 / p99 | ${fmtMs(p.p50)} / ${fmtMs(p.p99)} | ${fmtMs(e.p50)} / ${
          fmtMs(e.p99)
        } | ${ratio(e.p50, p.p50)} |`
      ).join("\n") +
      `\n| 1 connection p50 with 1,000 routes | | ${fmtMs(e1k.p50)} (one route: ${
        fmtMs(e1r.p50)
      }) | ${ratio(e1k.p50, e1r.p50)} of one route |\n\n` +
      `One connection: medians of ${rounds} alternating rounds of ${roundSecs} s (plain and engine; ` +
      `one route and 1,000 routes); the others: one run of ${secs} s each.\n\n` +
      `### CPU at 64 connections\n\n${budget} The plain server's figure is what answering the ` +
      "request itself costs on `Deno.serve` (HTTP in, JSON, HTTP out), which engine-http does too.\n";
    const checks = [
      `| HTTP 64 connections ≥ 0.4× plain | ${ratio(e64.rps, p64.rps)} | ${
        e64.rps >= 0.4 * p64.rps ? "met" : "**missed**"
      } |`,
      `| HTTP 1 connection p50 ≤ 2.5× plain | ${ratio(e1.p50, p1.p50)} | ${
        e1.p50 <= 2.5 * p1.p50 ? "met" : "**missed**"
      } |`,
      `| HTTP 1,000 routes ≤ 1.1× one route | ${ratio(e1k.p50, e1r.p50)} | ${
        e1k.p50 <= 1.1 * e1r.p50 ? "met" : "**missed**"
      } |`,
      `| no latency floor at 8/32/128 (p50 < 10 ms) | ${
        byLevel.map(([c, , e]) => `${c}: ${fmtMs(e.p50)}`).join(", ")
      } | ${byLevel.every(([, , e]) => e.p50 < 10) ? "met" : "**missed**"} |`,
    ];
    return { markdown, checks };
  } finally {
    await extra?.stop();
    await procs.disposeAsync();
    await Deno.remove(script);
  }
}

/**
 * The `scale` section of BENCHMARKS.md and its charts, from the figures
 * `bench/scale.ts` measured.
 *
 * @module
 */
import { dirname, relative, resolve } from "node:path";
import type { CallPoint, ScaleResults } from "./scale.ts";
import { lineChart } from "./svg_chart.ts";
import { fmtMs, fmtRate } from "./stats.ts";

const FLAT = 1.2;
const count = (n: number) => n.toLocaleString("en-US");
const verdict = (ok: boolean) => ok ? "met" : "**missed**";
const x = (r: number) => `${r.toFixed(2)}×`;

export function scaleReport(
  r: ScaleResults,
  o: {
    out: string;
    chartsDir: string;
    conditions: string;
    clientEnv: Record<string, string>;
    callRuns: number;
    wrkSeconds: number;
  },
): { markdown: string; charts: Record<string, string> } {
  const link = (name: string) =>
    relative(dirname(resolve(o.out)), resolve(o.chartsDir, name)).replaceAll("\\", "/");
  const first = <T>(a: T[]) => a[0]!;
  const last = <T>(a: T[]) => a.at(-1)!;

  const charts: Record<string, string> = {
    "routing_p50.svg": lineChart({
      title: "Routed call, sequential p50",
      xLabel: "idle workers connected / functions registered (log)",
      yLabel: "p50 (µs)",
      logX: true,
      series: [
        { name: "vs idle workers", points: r.workers.map((p) => [p.n, p.p50 * 1000]) },
        { name: "vs registered functions", points: r.functions.map((p) => [p.n, p.p50 * 1000]) },
      ],
    }),
    "routing_throughput.svg": lineChart({
      title: "Routed calls, 64 in flight",
      xLabel: "idle workers connected / functions registered (log)",
      yLabel: "calls/s",
      logX: true,
      series: [
        { name: "vs idle workers", points: r.workers.map((p) => [p.n, p.rate]) },
        { name: "vs registered functions", points: r.functions.map((p) => [p.n, p.rate]) },
      ],
    }),
    "http_routes_p50.svg": lineChart({
      title: "HTTP request through engine-http, one connection",
      xLabel: "routes (log)",
      yLabel: "ms",
      logX: true,
      series: [
        { name: "p50", points: r.routes.map((p) => [p.n, p.p50]) },
        { name: "p99", points: r.routes.map((p) => [p.n, p.p99]) },
      ],
    }),
    "memory.svg": lineChart({
      title: "Engine resident memory (VmRSS)",
      xLabel: "idle worker connections",
      yLabel: "MiB",
      series: [{ name: "RSS", points: r.memory.map((p) => [p.connections, p.rssKb / 1024]) }],
    }),
  };

  // From the first connection on: the first one also pays for code paths run once.
  const mem1 = r.memory[1]!;
  const memN = last(r.memory);
  const perConn = (memN.rssKb - mem1.rssKb) / (memN.connections - mem1.connections);
  const fn0 = first(r.functionsRss);
  const fnN = last(r.functionsRss);
  const perFunction = ((fnN.rssKb - fn0.rssKb) * 1024) / fnN.functions;
  const wN = last(r.workers);
  const fN = last(r.functions);
  // The smallest point, measured first and again at the end: the mean of the two.
  const both = (a: CallPoint, b: CallPoint | undefined): CallPoint =>
    b
      ? { n: a.n, p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, rate: (a.rate + b.rate) / 2 }
      : a;
  const w0 = both(first(r.workers), r.again.workers);
  const f0 = both(first(r.functions), r.again.functions);
  const h0 = first(r.routes), hN = last(r.routes);
  const flat = (name: string, small: string, large: string, ratio: number) =>
    `| ${name} | ${small} | ${large} | ${x(ratio)} | ≤ ${FLAT}× | ${verdict(ratio <= FLAT)} |`;
  const targets = [
    flat(
      `call p50, ${count(w0.n)} → ${count(wN.n)} idle workers`,
      fmtMs(w0.p50),
      fmtMs(wN.p50),
      wN.p50 / w0.p50,
    ),
    flat(
      `calls/s drop, ${count(w0.n)} → ${count(wN.n)} idle workers`,
      fmtRate(w0.rate),
      fmtRate(wN.rate),
      w0.rate / wN.rate,
    ),
    flat(
      `call p50, ${count(f0.n)} → ${count(fN.n)} functions`,
      fmtMs(f0.p50),
      fmtMs(fN.p50),
      fN.p50 / f0.p50,
    ),
    flat(
      `calls/s drop, ${count(f0.n)} → ${count(fN.n)} functions`,
      fmtRate(f0.rate),
      fmtRate(fN.rate),
      f0.rate / fN.rate,
    ),
    flat(
      `HTTP p50, ${count(h0.n)} → ${count(hN.n)} routes`,
      fmtMs(h0.p50),
      fmtMs(hN.p50),
      hN.p50 / h0.p50,
    ),
    `| memory per idle worker connection | | ${perConn.toFixed(1)} KB | | < 50 KB | ${
      verdict(perConn < 50)
    } |`,
  ];
  const totalRegisterMs = r.functions.reduce((s, p) => s + p.registerMs, 0);

  const markdown = `## Scale: routing cost against the engine's work

${o.conditions}

Run: \`deno run -A bench/scale.ts\`. A call is \`bench::echo\` (100 B) from a caller process to an
echo worker process through the engine (\`main.ts --config\`); sequential p50/p99 over ${o.clientEnv.BENCH_SEQ} calls,
then 64 in flight for ${o.clientEnv.BENCH_SECONDS} s, by a fresh caller process (${o.callRuns} at each point, median). Idle workers are raw
WebSocket connections from one helper process (\`bench/swarm.ts\`); functions (\`bench::f<i>\`) are
registered over those connections, round-robin, so the last point is ${count(wN.n)} connections
and ${
    count(fN.n)
  } functions on one engine. HTTP: \`wrk -c1\` for ${o.wrkSeconds} s on the last of the
routes \`POST /bench/r<i>/:id\`, all registered by one worker. Memory: \`VmRSS\` of the engine
process on a separate fresh engine, read after the heap settled. Flatness: the value at the largest
point over the value at the smallest (for calls/s, the smallest over the largest). The smallest
call points are measured twice, first and again at the end (functions unregistered and connections
closed back down to them), and their mean is the smallest point: a single measurement minutes away
from the largest one drifts with the host's load as much as the curves could.

| curve | smallest point | largest point | ratio | target | |
|---|---|---|---|---|---|
${targets.join("\n")}

![Routed call p50](${link("routing_p50.svg")})
![Routed calls per second](${link("routing_throughput.svg")})
![HTTP p50 against routes](${link("http_routes_p50.svg")})
![Engine memory](${link("memory.svg")})

### Routed call against idle workers

| idle workers | p50 | p99 | 64 in flight |
|---|---|---|---|
${
    [...r.workers, ...(r.again.workers ? [{ ...r.again.workers, again: true }] : [])].map((p) =>
      `| ${count(p.n)}${"again" in p ? " (again, at the end)" : ""} | ${fmtMs(p.p50)} | ${
        fmtMs(p.p99)
      } | ${fmtRate(p.rate)} |`
    ).join("\n")
  }

### Against registered functions (with ${count(wN.n)} idle workers connected)

Registration is timed from the first \`registerfunction\` frame to the engine's answer to a \`ping\`
sent after the last one on every connection (frames of one connection are handled in order).
Listing is \`engine::functions::list\` called over WebSocket, median of 3.

| functions | registered (new) | registration time | list time | call p50 | p99 | 64 in flight |
|---|---|---|---|---|---|---|
${
    r.functions.map((p) =>
      `| ${count(p.n)} | ${count(p.added)} | ${p.registerMs.toFixed(0)} ms | ${fmtMs(p.listMs)} | ${
        fmtMs(p.p50)
      } | ${fmtMs(p.p99)} | ${fmtRate(p.rate)} |`
    ).join("\n")
  }

All ${count(fN.n)} functions were registered in ${totalRegisterMs.toFixed(0)} ms in total.${
    r.again.functions
      ? ` Unregistered back down to ${count(r.again.functions.n)}: call p50 ${
        fmtMs(r.again.functions.p50)
      }, p99 ${fmtMs(r.again.functions.p99)}, ${fmtRate(r.again.functions.rate)}.`
      : ""
  } \`engine::workers::list\`
with ${count(wN.n + 2)} workers connected: ${fmtMs(r.workersListMs)}.

### HTTP against routes

| routes | p50 | p99 | routes live after (worker start included) |
|---|---|---|---|
${
    r.routes.map((p) =>
      `| ${count(p.n)} | ${fmtMs(p.p50)} | ${fmtMs(p.p99)} | ${p.readyMs.toFixed(0)} ms |`
    ).join("\n")
  }

### Engine memory

| idle connections | RSS |
|---|---|
${
    r.memory.map((p) => `| ${count(p.connections)} | ${(p.rssKb / 1024).toFixed(1)} MiB |`).join(
      "\n",
    )
  }

${perConn.toFixed(1)} KB per idle worker connection (RSS growth from ${
    count(mem1.connections)
  } to ${count(memN.connections)} connections, divided by ${
    count(memN.connections - mem1.connections)
  }; the first connection
also runs code paths for the first time); ${
    perFunction.toFixed(0)
  } bytes per registered function (RSS growth from 0 to ${
    count(fnN.functions)
  } functions, over the same connections).
`;
  return { markdown, charts };
}

/**
 * `deno task bench:compare [--smoke] [--out FILE]`: request/reply through
 * NATS (Debian's `nats-server`, npm `nats` client) against a call through
 * the engine (our TypeScript SDK on both ends), each between two separate
 * worker processes on loopback, measured in the same run. Both systems stay
 * up for the whole run and are measured in alternation, round after round;
 * each figure is the median over the rounds. Writes the `compare` section
 * of BENCHMARKS.md (or FILE).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { spawn } from "./procs.ts";
import { median, runClient } from "./client.ts";
import { conditions, loadAverage } from "./machine.ts";
import { natsServerPath, startEngine, startNats } from "./servers.ts";
import { writeSection } from "./sections.ts";
import { fmtMs, fmtRate, ratio } from "./stats.ts";
import { cpuDuring } from "./proc_stats.ts";
import type { Proc } from "./procs.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    out: { type: "string", default: "BENCHMARKS.md" },
  },
});
const smoke = values.smoke!;
const rounds = smoke ? 1 : 3;
const sizes = [100, 10_240];
const env = smoke
  ? { BENCH_SEQ: "200", BENCH_SECONDS: "1" }
  : { BENCH_SEQ: "3000", BENCH_SECONDS: "5" };

interface Figures {
  p50: number;
  p99: number;
  rate: number;
  /** CPU time (user + system) per call, µs: the server, the answering worker, the caller. */
  cpu: [number, number, number];
}

/** One caller run, with the CPU time the three processes spent on its calls. */
async function measure(
  args: string[],
  server: Proc,
  answerer: Proc,
  sizeEnv: Record<string, string>,
): Promise<Figures> {
  const { result: r, cpuMs } = await cpuDuring(
    [server.child.pid, answerer.child.pid],
    () => runClient(args, sizeEnv),
  );
  const calls = r.calls!; // warm-up included
  const perCall = (ms: number) => (ms * 1000) / calls;
  return {
    p50: r.seq.p50,
    p99: r.seq.p99,
    rate: r.conc!.perSecond,
    cpu: [perCall(cpuMs[0]!), perCall(cpuMs[1]!), perCall(r.cpuMs!.user + r.cpuMs!.system)],
  };
}

const load = await loadAverage();
const results = new Map<string, Figures[]>();
const add = (key: string, f: Figures) => results.set(key, [...(results.get(key) ?? []), f]);
// Every process started is stopped on every path, the last started first.
const procs = new AsyncDisposableStack();
try {
  const nats = await startNats();
  procs.use(nats.server);
  const responder = procs.use(
    spawn(["run", "--allow-all", "bench/nats_responder.ts", nats.url, "bench.echo"]),
  );
  const engine = procs.use(await startEngine());
  const worker = procs.use(
    spawn(["run", "--allow-all", "bench/echo_worker.ts"], { ENGINE_URL: engine.url }),
  );
  // The same engine with its opt-in native WebSocket server.
  const native = procs.use(await startEngine({ env: { ENGINE_TRANSPORT: "native" } }));
  const nativeWorker = procs.use(
    spawn(["run", "--allow-all", "bench/echo_worker.ts"], { ENGINE_URL: native.url }),
  );
  await responder.waitFor(/^ready$/);
  await worker.waitFor(/^ready$/);
  await nativeWorker.waitFor(/^ready$/);
  for (let r = 0; r < rounds; r++) {
    for (const size of sizes) {
      const sizeEnv = { ...env, BENCH_BYTES: String(size) };
      add(
        `nats:${size}`,
        await measure(["nats", nats.url, "bench.echo"], nats.server, responder, sizeEnv),
      );
      add(
        `engine:${size}`,
        await measure(["engine", engine.url, "bench::echo"], engine.engine, worker, sizeEnv),
      );
      add(
        `native:${size}`,
        await measure(
          ["engine", native.url, "bench::echo"],
          native.engine,
          nativeWorker,
          sizeEnv,
        ),
      );
    }
  }
} finally {
  await procs.disposeAsync();
}

const med = (key: string): Figures => {
  const runs = results.get(key)!;
  return {
    p50: median(runs.map((x) => x.p50)),
    p99: median(runs.map((x) => x.p99)),
    rate: median(runs.map((x) => x.rate)),
    cpu: [0, 1, 2].map((i) => median(runs.map((x) => x.cpu[i]!))) as Figures["cpu"],
  };
};
const us = (v: number) => `${v.toFixed(0)} µs`;
const cpuRows: string[] = [];
const budgets: string[] = [];
const verdict = (ok: boolean) => ok ? "met" : "**missed**";
const rows: string[] = [];
const nativeRows: string[] = [];
const nativeCpu: string[] = [];
for (const size of sizes) {
  const n = med(`nats:${size}`);
  const e = med(`engine:${size}`);
  const label = size >= 1024 ? `${size / 1024} KB` : `${size} B`;
  rows.push(
    `| ${label} | sequential p50 | ${fmtMs(n.p50)} | ${fmtMs(e.p50)} | ${
      ratio(e.p50, n.p50)
    } | ≤ 0.70× | ${verdict(e.p50 <= 0.7 * n.p50)} |`,
    `| ${label} | sequential p99 | ${fmtMs(n.p99)} | ${fmtMs(e.p99)} | ${
      ratio(e.p99, n.p99)
    } | | |`,
    `| ${label} | 64 in flight, calls/s | ${fmtRate(n.rate)} | ${fmtRate(e.rate)} | ${
      ratio(e.rate, n.rate)
    } | ≥ 1.50× | ${verdict(e.rate >= 1.5 * n.rate)} |`,
  );
  const x = med(`native:${size}`);
  nativeRows.push(
    `| ${label} | sequential p50 | ${fmtMs(n.p50)} | ${fmtMs(x.p50)} | ${
      ratio(x.p50, n.p50)
    } | ≤ 0.70× | ${verdict(x.p50 <= 0.7 * n.p50)} |`,
    `| ${label} | 64 in flight, calls/s | ${fmtRate(n.rate)} | ${fmtRate(x.rate)} | ${
      ratio(x.rate, n.rate)
    } | ≥ 1.50× | ${verdict(x.rate >= 1.5 * n.rate)} |`,
  );
  nativeCpu.push(
    `${label}: engine ${us(x.cpu[0])}, echo worker ${us(x.cpu[1])}, caller ${us(x.cpu[2])}`,
  );
  const sum = (f: Figures) => f.cpu[0] + f.cpu[1] + f.cpu[2];
  cpuRows.push(
    `| ${label} | ${us(n.cpu[0])} / ${us(n.cpu[1])} / ${us(n.cpu[2])} | ${us(sum(n))} | ${
      us(e.cpu[0])
    } / ${us(e.cpu[1])} / ${us(e.cpu[2])} | ${us(sum(e))} | ${ratio(sum(e), sum(n))} |`,
  );
  // What the throughput target leaves the engine, with every core busy all the time.
  const all = (navigator.hardwareConcurrency * 1e6) / (1.5 * n.rate);
  const left = all - e.cpu[1] - e.cpu[2];
  budgets.push(
    `- ${label}: at 1.5× NATS's rate, ${us(all)} of CPU per call for all three processes; the ` +
      `echo worker and the caller take ${us(e.cpu[1] + e.cpu[2])}, which leaves the engine ` +
      `${left > 0 ? `at most ${us(left)}` : "nothing"} (it takes ${us(e.cpu[0])}).`,
  );
}

const markdown = `## Side by side with NATS: request/reply vs a routed call

${await conditions(load, smoke)}

Both between two separate processes on loopback, in the same run: NATS \`nats-server\` ${(await new Deno
  .Command(natsServerPath(), { args: ["--version"], stdout: "piped" }).output()
  .then((o) => new TextDecoder().decode(o.stdout).trim().replace("nats-server: ", ""))
  .catch(() =>
    ""
  ))} (Debian) with a responder and a requester on the npm \`nats\` client; the engine (\`main.ts --config\`, no
built-in workers) with an echo worker and a caller on our TypeScript SDK. Payload: a JSON object of
the given size, encoded and decoded as JSON at both ends on both systems. Sequential: ${env.BENCH_SEQ} calls one after another (after 200 warm-up calls); 64 in flight: 64 concurrent callers for ${env.BENCH_SECONDS} s.
${
  rounds > 1
    ? `Each figure is the median of ${rounds} rounds, the two systems alternating.`
    : ""
} Run: \`deno task bench:compare\`.

| payload | measure | NATS | engine | engine / NATS | target | |
|---|---|---|---|---|---|---|
${rows.join("\n")}

CPU time (user + system, all threads, from \`/proc/<pid>/stat\` and \`process.cpuUsage()\`) per call
over the same runs: server / answering process / caller. On two cores the 64-in-flight figure is
bound by the busiest single process and by the sum.

| payload | NATS: nats-server / responder / requester | NATS total | engine / echo worker / caller | engine total | engine / NATS |
|---|---|---|---|---|---|
${cpuRows.join("\n")}

${budgets.join("\n")}

With \`ENGINE_TRANSPORT=native\` (the engine's own RFC 6455 server over \`Deno.listen\`, opt-in; the
same engine, measured in the same rounds; NATS's figures repeated):

| payload | measure | NATS | engine, native | engine / NATS | target | |
|---|---|---|---|---|---|---|
${nativeRows.join("\n")}

CPU time per call, native: ${nativeCpu.join("; ")}.
`;
await writeSection(values.out!, "compare", markdown);
console.log(markdown);

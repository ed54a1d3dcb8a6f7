/**
 * Soak: the engine (with engine-http and engine-state) as a process under
 * rounds of churn (see `soak_round.ts`), measured after each round: its RSS,
 * its open file descriptors, and through its built-ins the workers,
 * functions, triggers, trigger types, HTTP routes and calls in flight. After
 * the warm-up rounds, every count must be back at its baseline after each
 * round and RSS must level off (the log and trace stores are rings); anything
 * that grows round after round is reported as a leak, and the exit code is 1.
 *
 * Usage: deno run -A bench/soak.ts [--minutes N] [--rounds N] [--workers N]
 *        [--warmup N] [--ring N] [--no-console] [--smoke]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { builtinWorkersYaml, startEngine } from "./servers.ts";
import { rssKb } from "./proc_stats.ts";
import { SoakPeer } from "./soak_peer.ts";
import { nativeSocket } from "./soak_socket.ts";
import { type RoundTally, runRound } from "./soak_round.ts";

const BODY_LIMIT = 4096;
/**
 * engine-http's `default_timeout`: short, so the rounds' time-out cases end
 * soon, but not so short that a plain request misses it on a loaded machine
 * (300 ms did once, with the whole test suite running beside the smoke run).
 */
const HTTP_TIMEOUT_MS = 1000;

/** What is measured after each round. */
export interface Sample {
  round: number;
  rssKb: number;
  fds: number;
  workers: number;
  functions: number;
  triggers: number;
  triggerTypes: number;
  routes: number;
  /** Calls doing work (`engine::invocations::stats`). */
  inFlight: number;
  /** Every call in the invocation table but the one asking (`engine::health::check`). */
  invocations: number;
}

/** The counts that must come back to their baseline after every round. */
const COUNTS = [
  "fds",
  "workers",
  "functions",
  "triggers",
  "triggerTypes",
  "routes",
  "inFlight",
  "invocations",
] as const;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string", default: "2" },
      rounds: { type: "string" },
      workers: { type: "string", default: "8" },
      warmup: { type: "string", default: "3" },
      // Small rings fill in a few rounds, so that a short run reaches the plateau; the
      // engine's default is 10000 (a longer run: --ring 10000 --minutes 10).
      ring: { type: "string", default: "1000" },
      "no-console": { type: "boolean", default: false },
      smoke: { type: "boolean", default: false },
    },
  });
  const smoke = values.smoke;
  const deadline = Date.now() + Number(values.minutes) * 60_000;
  const maxRounds = smoke ? 1 : Number(values.rounds ?? Infinity);
  const warmup = smoke ? 0 : Number(values.warmup);
  const workers = smoke ? 2 : Number(values.workers);
  const ring = Number(values.ring);

  await using engine = await startEngine({
    workersYaml: (dir) =>
      builtinWorkersYaml(dir).replace(
        "host: 127.0.0.1\n",
        `host: 127.0.0.1\n      default_timeout: ${HTTP_TIMEOUT_MS}\n      body_limit: ${BODY_LIMIT}\n`,
      ) +
      `invocation_timeout_ms: 1000\nlogs:\n  max_entries: ${ring}\ntraces:\n  max_spans: ${ring}\n`,
  });
  const pid = engine.engine.child.pid;
  const httpPort = (await engine.engine.waitFor(/API listening on address: \S+:(\d+)/))[1];
  const http = `http://127.0.0.1:${httpPort}`;
  const ctl = await SoakPeer.connect(await nativeSocket(engine.url), "soak-ctl");

  const samples: Sample[] = [];
  const tallies: RoundTally[] = [];
  console.log(
    `Soak: engine pid ${pid}, ${workers} workers per round, ${warmup} warm-up round(s), ` +
      `log and trace rings of ${ring}`,
  );
  console.log(header());
  const first = await measure(ctl, pid, 0);
  console.log(row(first, undefined));
  for (let round = 1; round <= maxRounds && Date.now() < deadline; round++) {
    const tally = await runRound({
      url: engine.url,
      http,
      ctl,
      round,
      workers,
      console: !values["no-console"],
      bodyLimit: BODY_LIMIT,
    });
    tallies.push(tally);
    const sample = await settled(ctl, pid, round, samples[warmup - 1] ?? first);
    samples.push(sample);
    console.log(row(sample, tally));
  }
  const verdict = judge(first, samples, warmup);
  console.log(`\nHTTP statuses: ${JSON.stringify(sum(tallies.map((t) => t.http)))}`);
  console.log(`Call outcomes: ${JSON.stringify(sum(tallies.map((t) => t.calls)))}`);
  const surprises = tallies.flatMap((t) => t.unexpected);
  if (surprises.length > 0) {
    console.log(
      `Unexpected outcomes (${surprises.length}):\n  ${surprises.slice(0, 20).join("\n  ")}`,
    );
  }
  for (const line of verdict.lines) console.log(line);
  return verdict.leaks === 0 && (smoke ? surprises.length === 0 : true) ? 0 : 1;
}

/** A sample once the round's departures are processed: counts at the baseline, or 5 s later. */
async function settled(ctl: SoakPeer, pid: number, round: number, base: Sample): Promise<Sample> {
  const until = Date.now() + 5000;
  for (;;) {
    const s = await measure(ctl, pid, round);
    const back = COUNTS.every((k) => k === "fds" || s[k] <= base[k]);
    if (back || Date.now() > until) return s;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function measure(ctl: SoakPeer, pid: number, round: number): Promise<Sample> {
  // deno-lint-ignore no-explicit-any
  const call = (id: string, data: unknown = {}) => ctl.result(id, data) as Promise<any>;
  const [workers, functions, triggers, types, stats] = await Promise.all([
    call("engine::workers::list"),
    call("engine::functions::list", { include_internal: true }),
    call("engine::registered-triggers::list"),
    call("engine::triggers::list"),
    call("engine::invocations::stats"),
  ]);
  // Alone, so that the only call of the soak's in the table is this one.
  const health = await call("engine::health::check");
  let fds = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) fds++;
  const http = workers.workers.find((w: { name: string }) => w.name === "engine-http");
  return {
    round,
    rssKb: await rssKb(pid),
    fds,
    workers: workers.workers.length,
    functions: functions.functions.length,
    triggers: triggers.registered_triggers.length,
    triggerTypes: types.triggers.length,
    routes: http?.routes?.length ?? -1,
    inFlight: stats.in_flight,
    invocations: health.invocations_in_flight - 1,
  };
}

function header(): string {
  return "round   RSS MB   fds  workers  functions  triggers  types  routes  in-flight  table  http/calls";
}

function row(s: Sample, tally: RoundTally | undefined): string {
  const pad = (v: string | number, n: number) => String(v).padStart(n);
  const requests = tally
    ? `${Object.values(tally.http).reduce((a, b) => a + b, 0)}/${
      Object.values(tally.calls).reduce((a, b) => a + b, 0)
    }`
    : "";
  return `${pad(s.round, 5)} ${pad((s.rssKb / 1024).toFixed(1), 8)} ${pad(s.fds, 5)} ${
    pad(s.workers, 8)
  } ${pad(s.functions, 10)} ${pad(s.triggers, 9)} ${pad(s.triggerTypes, 6)} ${pad(s.routes, 7)} ${
    pad(s.inFlight, 10)
  } ${pad(s.invocations, 6)}  ${requests}`;
}

/**
 * Leaks: a count above its baseline (the last warm-up round) after a later
 * round, and RSS still climbing over the second half of the run.
 */
export function judge(
  first: Sample,
  samples: Sample[],
  warmup: number,
): { leaks: number; lines: string[] } {
  const lines: string[] = [];
  let leaks = 0;
  const base = samples[warmup - 1] ?? first;
  const after = samples.slice(warmup);
  for (const key of COUNTS) {
    // Without warm-up the baseline is the engine before any connection: fds are not comparable.
    if (key === "fds" && warmup === 0) continue;
    // An fd may be open for a moment at any sample (a connection closing): fds leak when even
    // their lowest count over the last quarter of the run is above the baseline.
    const tail = key === "fds" ? after.slice(-Math.max(1, Math.floor(after.length / 4))) : after;
    const over = key === "fds"
      ? (Math.min(...tail.map((s) => s[key])) > base[key] ? tail : [])
      : after.filter((s) => s[key] > base[key]);
    if (over.length > 0) {
      leaks++;
      lines.push(
        `LEAK ${key}: baseline ${base[key]}, above it after ${over.length} of ${after.length} ` +
          `round(s): ${after.slice(-20).map((s) => s[key]).join(", ")}${
            after.length > 20 ? " (the last 20)" : ""
          }`,
      );
    }
  }
  const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
  const last = samples.at(-1) ?? first;
  lines.push(
    `RSS: ${mb(first.rssKb)} at start, ${mb(base.rssKb)} after warm-up, ${mb(last.rssKb)} after ` +
      `round ${last.round} (peak ${mb(Math.max(...samples.map((s) => s.rssKb), first.rssKb))}); ` +
      `fds ${first.fds} at start, ${base.fds} after warm-up, ${last.fds} at the end`,
  );
  const half = after.slice(Math.floor(after.length / 2));
  if (half.length >= 4) {
    const slope = slopeKbPerRound(half);
    lines.push(`RSS over the last ${half.length} rounds: ${slope.toFixed(0)} KB per round`);
    // Climbing by more than 0.1% per round all through the second half is no plateau.
    if (slope > last.rssKb * 0.001) {
      leaks++;
      lines.push(`LEAK rss: still climbing ${slope.toFixed(0)} KB per round`);
    }
  }
  lines.push(leaks === 0 ? "No leak found" : `${leaks} leak(s) found`);
  return { leaks, lines };
}

/** Least-squares slope of RSS over the round number. */
function slopeKbPerRound(samples: Sample[]): number {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.round, 0) / n;
  const my = samples.reduce((a, s) => a + s.rssKb, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.round - mx) * (s.rssKb - my);
    den += (s.round - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function sum(tables: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tables) for (const [k, v] of Object.entries(t)) out[k] = (out[k] ?? 0) + v;
  return out;
}

if (import.meta.main) Deno.exit(await main());

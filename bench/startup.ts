/**
 * `deno run -A bench/startup.ts [--smoke] [--out FILE] [--binary PATH]`: how
 * long `engine --config` takes, with engine-http and engine-state
 * configured, from spawning the process to (a) a worker's WebSocket
 * handshake succeeding and (b) the first HTTP answer from engine-http (a 404
 * is fine). Both are polled every 2 ms from the moment of the spawn; each
 * figure is the median of several starts. Variants: the source run as
 * `deno run` (Deno 2 does not type-check on run; modules come from the
 * cache), the `deno bundle` output (what `deno task bundle` ships), a
 * compiled binary when one is given or `dist/engine` exists, and as the
 * floor, a plain `Deno.serve` script answering its first request.
 * Writes the `startup` section of BENCHMARKS.md (or FILE).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { ROOT, run, spawnCommand } from "./procs.ts";
import { median } from "./client.ts";
import { conditions, loadAverage } from "./machine.ts";
import { freePort } from "../tests/support/ports.ts";
import { builtinWorkersYaml } from "./servers.ts";
import { writeSection } from "./sections.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    smoke: { type: "boolean", default: false },
    out: { type: "string", default: "BENCHMARKS.md" },
    binary: { type: "string" },
  },
});
const smoke = values.smoke!;
const runs = smoke ? 2 : 9;
const TARGET_MS = 300;
const POLL_MS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves when a WebSocket handshake with `url` succeeds; retries until then. */
async function untilWebSocket(url: string, give: AbortSignal): Promise<void> {
  while (!give.aborted) {
    const opened = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        ws.close();
        resolve(true);
      };
      ws.onerror = () => resolve(false);
    });
    if (opened) return;
    await sleep(POLL_MS);
  }
}

/** Resolves at the first HTTP answer from `url`, whatever its status. */
async function untilHttp(url: string, give: AbortSignal): Promise<void> {
  while (!give.aborted) {
    try {
      const res = await fetch(url, { signal: give });
      await res.body?.cancel();
      return;
    } catch {
      await sleep(POLL_MS);
    }
  }
}

interface Start {
  workersMs: number;
  httpMs: number;
}

async function startOnce(command: string, args: string[], dir: string): Promise<Start> {
  const enginePort = freePort();
  const httpPort = freePort();
  const config = join(dir, "engine-config.yaml");
  await Deno.writeTextFile(
    config,
    `host: 127.0.0.1\nport: ${enginePort}\nconsole:\n  enabled: false\nworkers:\n${
      builtinWorkersYaml(dir, httpPort)
    }`,
  );
  const give = AbortSignal.timeout(30_000);
  const t0 = performance.now();
  const proc = spawnCommand(command, [...args, "--config", config]);
  try {
    const [workersMs, httpMs] = await Promise.all([
      untilWebSocket(`ws://127.0.0.1:${enginePort}/`, give).then(() => performance.now() - t0),
      untilHttp(`http://127.0.0.1:${httpPort}/`, give).then(() => performance.now() - t0),
    ]);
    if (give.aborted) throw new Error(`The engine did not start:\n${proc.lines.join("\n")}`);
    return { workersMs, httpMs };
  } finally {
    await proc.stop();
  }
}

async function floorOnce(): Promise<number> {
  const t0 = performance.now();
  const proc = spawnCommand(Deno.execPath(), ["run", "--allow-all", "bench/plain_http.ts"]);
  try {
    const port = (await proc.waitFor(/port=(\d+)/))[1];
    await untilHttp(`http://127.0.0.1:${port}/`, AbortSignal.timeout(30_000));
    return performance.now() - t0;
  } finally {
    await proc.stop();
  }
}

const load = await loadAverage();
const dir = await Deno.makeTempDir({ prefix: "engine-startup-" });
const bundle = join(dir, "engine.js");
await run(Deno.execPath(), ["bundle", "--platform", "deno", "-o", bundle, "main.ts"]);
const variants: [string, string, string[]][] = [
  ["`deno run -A main.ts` (source)", Deno.execPath(), ["run", "--allow-all", "main.ts"]],
  ["`deno run -A engine.js` (bundle)", Deno.execPath(), ["run", "--allow-all", bundle]],
];
const binary = values.binary ?? join(ROOT, "dist/engine");
try {
  await Deno.stat(binary);
  variants.push([`compiled binary (\`${values.binary ?? "dist/engine"}\`)`, binary, []]);
} catch { /* no binary to measure */ }

const rows: string[] = [];
const checks: string[] = [];
try {
  for (const [label, command, args] of variants) {
    const starts: Start[] = [];
    await startOnce(command, args, dir); // warm the module cache and the disk cache
    for (let i = 0; i < runs; i++) starts.push(await startOnce(command, args, dir));
    const workers = median(starts.map((s) => s.workersMs));
    const http = median(starts.map((s) => s.httpMs));
    rows.push(
      `| ${label} | ${workers.toFixed(0)} ms | ${http.toFixed(0)} ms | ${
        Math.min(...starts.map((s) => s.httpMs)).toFixed(0)
      }–${Math.max(...starts.map((s) => s.httpMs)).toFixed(0)} ms |`,
    );
    checks.push(
      `| ${label}: serving HTTP < ${TARGET_MS} ms | ${http.toFixed(0)} ms | ${
        http < TARGET_MS ? "met" : "**missed**"
      } |`,
    );
  }
  const floors: number[] = [];
  await floorOnce();
  for (let i = 0; i < runs; i++) floors.push(await floorOnce());
  rows.push(
    `| floor: a plain \`Deno.serve\` script (\`deno run\`) | | ${median(floors).toFixed(0)} ms | ${
      Math.min(...floors).toFixed(0)
    }–${Math.max(...floors).toFixed(0)} ms |`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}

const markdown = `## Start-up: \`engine --config\` to accepting workers and serving HTTP

${await conditions(load, smoke)}

Run: \`deno run -A bench/startup.ts\`. The config has \`engine-http\` and \`engine-state\` (SQLite)
and the console disabled. Time from spawning the process to the first successful WebSocket
handshake on the engine's port, and to the first HTTP answer from engine-http (404 here), both
polled every ${POLL_MS} ms from the spawn. Median of ${runs} starts after one unmeasured start (module and
disk caches warm). \`deno run\` does not type-check in Deno 2: the source variant is module loading
from Deno's cache and transpiled-code cache, the bundle is one pre-built file.

| variant | accepting workers | serving HTTP | HTTP range |
|---|---|---|---|
${rows.join("\n")}

| target | measured | |
|---|---|---|
${checks.join("\n")}
`;
await writeSection(values.out!, "startup", markdown);
console.log(markdown);

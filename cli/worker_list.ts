/**
 * `engine worker list [--json]`: the config's workers with what the running
 * engine says about them (status, pid, functions), plus workers connected
 * from elsewhere. Without a running engine, the config's entries show as
 * `stopped`. The CLI's own connections (`engine logs -f`, a command running
 * meanwhile) are tools, not workers: counted below the table
 * (`cli_connections` in JSON), not listed.
 *
 * @module
 */

import { dirname, resolve } from "node:path";
import type { WorkerEntry } from "../engine/config/mod.ts";
import { isCliConnection } from "../engine/connection_log.ts";
import type { BuiltinFailure, SupervisedView } from "../engine/supervisor/functions.ts";
import { loadManifest } from "../engine/supervisor/manifest.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";
import { parseWorkerArgs, readConfigFile } from "./worker_args.ts";
import { type ConnectedWorker, findEngineUrl, linkEngine } from "./worker_engine.ts";

/** One row of the list. */
export interface WorkerRow {
  name: string;
  /** `builtin`, the manifest's `runtime.kind`, or `external` (connected, not in the config). */
  kind: string;
  /** `failed`: a built-in worker the engine could not start (`error` says why). */
  status: "installing" | "running" | "crashed" | "failed" | "stopped";
  pid: number | null;
  functions: number | null;
  restarts: number | null;
  /** Why it cannot run, when it cannot. */
  error: string | null;
}

export async function workerList(args: string[], io: Io): Promise<number> {
  const options = parseWorkerArgs(args, 10_000);
  if (options.positionals.length > 0) {
    throw new UsageError(`Unexpected argument "${options.positionals[0]}"`, "worker");
  }
  const file = options.config;
  const read = await readConfigFile(file);
  if (!read.ok && read.missing) {
    io.err(`Error: ${read.message}`);
    return 1;
  }
  const entries = read.ok ? read.config.workers : [];
  const url = await findEngineUrl(file, read.ok ? read.config : undefined, options.url);
  const linked = await linkEngine(url, file);
  if (!linked.ok && linked.refused) {
    // An engine runs there: the file alone would show its workers as stopped.
    io.err(`Error: ${linked.reason}`);
    return 1;
  }
  if (!read.ok) {
    // A running engine still runs the last valid config, and can say what runs; without one,
    // the file is all there is, and it says nothing.
    if (!linked.ok) {
      io.err(`Error: ${read.message}`);
      return 1;
    }
    io.err(`Warning: ${read.message}`);
  }
  let rows: WorkerRow[];
  let cli: string[] = [];
  if (linked.ok) {
    try {
      const { workers, failedBuiltins } = await linked.link.supervisorList();
      const { own, others } = splitCli(await linked.link.connected());
      rows = joinRows(entries, workers, others, failedBuiltins);
      cli = own;
    } finally {
      await linked.link.close();
    }
  } else {
    rows = await Promise.all(entries.map((entry) => stoppedRow(entry, dirname(file))));
  }
  if (options.json) {
    const engine = linked.ok ? url : null;
    const shown = { engine, config: file, workers: rows, cli_connections: cli.length };
    io.out(JSON.stringify(shown, null, 2));
    return 0;
  }
  if (!linked.ok) io.out(`${linked.reason}: showing ${file}`);
  if (rows.length === 0) {
    io.out(
      'No workers. Add one with "engine worker add <folder>" (or engine-http, engine-state, engine-queue).',
    );
    return 0;
  }
  io.out(table(rows));
  if (cli.length > 0) {
    const one = cli.length === 1;
    io.out(
      `\n${cli.length} connection${one ? "" : "s"} of the engine CLI itself ${
        one ? "is" : "are"
      } not listed: ${cli.join(", ")}`,
    );
  }
  return 0;
}

/**
 * The CLI's own connections (by name, sorted), but not this command's, and
 * the others: what `engine::workers::list` says of each includes its `sdk`.
 */
function splitCli(connected: ConnectedWorker[]): { own: string[]; others: ConnectedWorker[] } {
  const own: string[] = [];
  const others: ConnectedWorker[] = [];
  for (const c of connected) {
    const metadata = c as unknown as Record<string, unknown>;
    if (!isCliConnection({ metadata })) others.push(c);
    else if (c.pid !== Deno.pid) own.push(c.name);
  }
  return { own: own.sort(), others };
}

function joinRows(
  entries: WorkerEntry[],
  supervised: SupervisedView[],
  connected: ConnectedWorker[],
  failed: BuiltinFailure[],
): WorkerRow[] {
  const rows: WorkerRow[] = [];
  const claimed = new Set<string>(["engine"]);
  for (const s of supervised) {
    rows.push({
      name: s.name,
      kind: s.kind ?? "local",
      status: s.status,
      pid: s.pid,
      functions: s.function_count,
      restarts: s.restarts,
      error: s.error,
    });
    claimed.add(s.name);
  }
  for (const entry of entries.filter((e) => e.path === undefined)) {
    const running = connected.find((c) => c.name === entry.name && c.kind === "builtin");
    const failure = running ? undefined : failed.find((f) => f.name === entry.name);
    rows.push({
      name: entry.name,
      kind: "builtin",
      status: running ? "running" : failure ? "failed" : "stopped",
      pid: null, // it runs inside the engine
      functions: running?.function_count ?? null,
      restarts: null,
      error: failure ? failure.error : null,
    });
    claimed.add(entry.name);
  }
  for (const c of connected) {
    if (claimed.has(c.name)) continue;
    // A built-in worker runs without an entry while the config file is invalid.
    const builtin = c.kind === "builtin";
    rows.push({
      name: c.name,
      kind: builtin ? "builtin" : "external",
      status: "running",
      pid: builtin ? null : c.pid,
      functions: c.function_count,
      restarts: null,
      error: null,
    });
  }
  const order = new Map(entries.map((e, i) => [e.name, i]));
  const rank = (r: WorkerRow) => order.get(r.name) ?? Number.MAX_SAFE_INTEGER;
  return rows.sort((a, b) => rank(a) - rank(b));
}

async function stoppedRow(entry: WorkerEntry, base: string): Promise<WorkerRow> {
  let kind = "builtin";
  if (entry.path !== undefined) {
    kind = await loadManifest(resolve(base, entry.path)).then(
      (m) => m.manifest.runtime.kind,
      () => "local",
    );
  }
  return {
    name: entry.name,
    kind,
    status: "stopped",
    pid: null,
    functions: null,
    restarts: null,
    error: null,
  };
}

function table(rows: WorkerRow[]): string {
  const header = ["NAME", "KIND", "STATUS", "PID", "FUNCTIONS", "RESTARTS"];
  const cells = rows.map((r) => [
    r.name,
    r.kind,
    r.status,
    r.pid === null ? "-" : String(r.pid),
    r.functions === null ? "-" : String(r.functions),
    r.restarts === null ? "-" : String(r.restarts),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  const errors = rows.filter((r) => r.error).map((r) => `  ${r.name}: ${r.error}`);
  return [line(header), ...cells.map(line), ...(errors.length ? ["", ...errors] : [])].join("\n");
}

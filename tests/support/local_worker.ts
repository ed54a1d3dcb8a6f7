/**
 * Local worker folders for supervisor and `engine worker` tests, written
 * into a temporary folder: a manifest, an entry file, and optionally a Deno
 * worker using our TypeScript SDK (imported by absolute URL, so the folder
 * can live anywhere).
 *
 * @module
 */
import { ROOT } from "./engine_process.ts";

export const SDK_URL = new URL("sdk/typescript/mod.ts", `file://${ROOT}`).href;

export interface LocalWorkerSpec {
  name: string;
  start: string;
  install?: string;
  kind?: string;
  entry?: string;
  env?: Record<string, string>;
  /** Other files of the folder, by relative path. */
  files?: Record<string, string>;
}

/** Writes a worker folder at `dir` (created) and returns `dir`. */
export async function writeLocalWorker(dir: string, spec: LocalWorkerSpec): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const entry = spec.entry ?? "main.ts";
  const lines = [
    `# ${spec.name}: a worker written by a test`,
    `name: ${spec.name}`,
    "runtime:",
    `  kind: ${spec.kind ?? "typescript"}`,
    `  entry: ${entry}`,
    "scripts:",
    ...(spec.install !== undefined ? [`  install: ${JSON.stringify(spec.install)}`] : []),
    `  start: ${JSON.stringify(spec.start)}`,
  ];
  if (spec.env) {
    lines.push("env:", ...Object.entries(spec.env).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  }
  await Deno.writeTextFile(`${dir}/engine.worker.yaml`, `${lines.join("\n")}\n`);
  const files = { [entry]: "// entry\n", ...spec.files };
  for (const [path, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

/**
 * The source of a Deno worker that registers `<ns>::ping` (returns its pid
 * and what the engine put in its environment), prints `ready`, and, when
 * `spawnChild`, starts a `sleep` child of its own first.
 */
export function sdkWorkerSource(ns: string, options: { spawnChild?: boolean } = {}): string {
  return `import { registerWorker } from ${JSON.stringify(SDK_URL)};
${options.spawnChild ? 'new Deno.Command("sleep", { args: ["1000"] }).spawn();\n' : ""}
const worker = registerWorker(Deno.env.get("ENGINE_URL"), {
  reconnect: { initialDelayMs: 100, maxDelayMs: 500 },
});
worker.registerFunction(${JSON.stringify(`${ns}::ping`)}, () => ({
  pid: Deno.pid,
  worker_name: Deno.env.get("ENGINE_WORKER_NAME") ?? null,
  worker_config: Deno.env.get("ENGINE_WORKER_CONFIG") ?? null,
}));
await worker.ready();
console.log("ready");
`;
}

/** The start command of a Deno SDK worker whose entry is main.ts. */
export const DENO_START = "deno run --allow-net --allow-env --allow-read --allow-run main.ts";

/** Whether process `pid` is alive (not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Pids of the live processes of group `pgid`. */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Resolves once `check()` holds, polling; rejects with `what` after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

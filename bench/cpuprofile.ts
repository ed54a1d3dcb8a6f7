/**
 * Reads a V8 `.cpuprofile` (written by `deno run --cpu-prof`) and says where
 * the time went: self time per function and per area of code.
 *
 * @module
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Monotonic clock, µs (the clock of `/proc/uptime` on Linux). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  /** Where the function is: a project path with line, `ext:…` for Deno's runtime, or `native`. */
  where: string;
  area: string;
  ms: number;
}

export interface ProfileSummary {
  /** Sampled time the thread was busy (everything but `(idle)`), in ms. */
  busyMs: number;
  functions: SelfTime[];
  /** Busy time per area of code, largest first. */
  areas: { area: string; ms: number }[];
}

/** Which part of the system a frame belongs to. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === "") {
    if (functionName === "(garbage collector)") return "garbage collection";
    if (functionName === "(program)") return "native (Rust ops, I/O, V8 outside JS)";
    return functionName === "(idle)" ? "idle" : "V8 builtins (JSON, strings, …)";
  }
  if (url.startsWith("ext:deno_websocket") || url.startsWith("ext:deno_web/02_event")) {
    return "Deno WebSocket and events";
  }
  if (url.startsWith("ext:") || url.startsWith("node:")) return "Deno runtime (other)";
  if (url.includes("/npm/") || url.includes("registry.npmjs.org")) {
    const pkg = /registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    return `npm ${pkg ?? "package"}`;
  }
  const m = /\/(engine|sdk\/typescript|workers\/\w+|bench|cli)\//.exec(url);
  return m ? `${m[1]}/` : "other";
}

function shortUrl(url: string, line: number): string {
  if (url === "") return "native";
  const local = /\/(engine|sdk|workers|bench|cli)\/(.*)$/.exec(url);
  if (local) return `${local[1]}/${local[2]}:${line + 1}`;
  const npm = /registry\.npmjs\.org\/(.*)$/.exec(url);
  if (npm) return `npm:${npm[1]}:${line + 1}`;
  return `${url}:${line + 1}`;
}

/** Monotonic time now in µs, on the clock of profile timestamps. */
export async function monotonicUs(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/uptime")).split(" ")[0]) * 1e6;
}

/** Self times, counting only samples within `window` (µs, profile clock) when given. */
export function summarizeProfile(
  profile: CpuProfile,
  window?: { from: number; to: number },
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  // timeDeltas[i + 1] is the time spent in samples[i] (until the next sample).
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (window && (t < window.from || t > window.to)) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, dt));
  }
  const fns = new Map<string, SelfTime>();
  const areas = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const area = areaOf(frame);
    if (area === "idle") continue;
    busy += us;
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = frame.functionName || "(anonymous)";
    const where = shortUrl(frame.url, frame.lineNumber);
    const key = `${name}@${where}`;
    const entry = fns.get(key) ?? { name, where, area, ms: 0 };
    entry.ms += us / 1000;
    fns.set(key, entry);
  }
  return {
    busyMs: busy / 1000,
    functions: [...fns.values()].sort((a, b) => b.ms - a.ms),
    areas: [...areas].map(([area, us]) => ({ area, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
  };
}

/** The profile in `dir` (the newest `.cpuprofile` there). */
export async function readProfile(dir: string): Promise<CpuProfile> {
  let newest: { path: string; mtime: number } | undefined;
  for await (const e of Deno.readDir(dir)) {
    if (!e.name.endsWith(".cpuprofile")) continue;
    const path = `${dir}/${e.name}`;
    const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
    if (!newest || mtime > newest.mtime) newest = { path, mtime };
  }
  if (!newest) throw new Error(`No .cpuprofile in "${dir}"`);
  return JSON.parse(await Deno.readTextFile(newest.path));
}

/**
 * The measuring side of a benchmark, run as its own process:
 *   load_client.ts echo   <ws-url>             (direct WebSocket echo baseline)
 *   load_client.ts engine <ws-url> <function>  (a call through the engine)
 *   load_client.ts nats <nats-url> <subject>   (NATS request/reply, JSON both ways)
 * Env: BENCH_SEQ (sequential calls), BENCH_SECONDS (64-in-flight run),
 * BENCH_BYTES (payload of those two, default 100), BENCH_SIZES (payload sweep,
 * bytes, comma separated; empty: none), BENCH_PAYLOAD (json template kind:
 * "echo" or "state"). Prints one JSON line of results.
 */
import { connect as natsConnect } from "nats";
import process from "node:process";
import { registerWorker } from "../sdk/typescript/mod.ts";
import { WebSocketClient } from "../sdk/typescript/websocket/mod.ts";
import { summarize } from "./stats.ts";

type Call = (payload: unknown) => Promise<unknown>;

const [mode, url, functionId] = Deno.args;
const seqN = Number(Deno.env.get("BENCH_SEQ") ?? "2000");
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "10");
const sizes = (Deno.env.get("BENCH_SIZES") ?? "100,1024,4096,16384,65536,262144,1048576").split(",")
  .filter((s) => s !== "").map(Number);
const bytes = Number(Deno.env.get("BENCH_BYTES") ?? "100");
const kind = Deno.env.get("BENCH_PAYLOAD") ?? "echo";
const inflight = Number(Deno.env.get("BENCH_INFLIGHT") ?? "64");

/**
 * The payload's text, made once per size and flat: `"x".repeat(n)` is a rope
 * in V8, and flattening a fresh one inside every `JSON.stringify` was the
 * largest cost of a 10 KB call on the calling side (of every system measured),
 * though it is the benchmark's own work, not the system's.
 */
const texts = new Map<number, string>();
function textOf(length: number): string {
  let text = texts.get(length);
  if (text === undefined) texts.set(length, text = JSON.parse(JSON.stringify("x".repeat(length))));
  return text!;
}

function payloadOf(bytes: number, i = 0): unknown {
  const data = textOf(Math.max(0, bytes - 20));
  if (kind === "state-set") return { scope: "bench", key: `k${i % 1000}`, value: data };
  if (kind === "state-get") return { scope: "bench", key: `k${i % 1000}` };
  return { data };
}

async function echoCaller(target: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const ws = await WebSocketClient.connect(target);
  const pending = new Map<number, (v: unknown) => void>();
  let next = 0;
  ws.onmessage = (m) => {
    const f = JSON.parse(typeof m === "string" ? m : new TextDecoder().decode(m));
    pending.get(f.id)?.(f.payload);
    pending.delete(f.id);
  };
  return {
    call: (payload) =>
      new Promise((resolve) => {
        const id = next++;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, payload }));
      }),
    close: async () => void (await ws.close()),
  };
}

async function engineCaller(
  target: string,
  fn: string,
): Promise<{ call: Call; close: () => Promise<void> }> {
  const worker = registerWorker(target, {
    worker_name: "bench-client",
    batchFrames: Deno.env.get("BENCH_BATCH") !== "0",
  });
  await worker.ready();
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const list = await worker.trigger({ function_id: "engine::functions::list", payload: {} }) as {
      functions: { function_id: string }[];
    };
    if (list.functions.some((f) => f.function_id === fn)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    call: (payload) => worker.trigger({ function_id: fn, payload }),
    close: () => worker.shutdown(),
  };
}

/** Request/reply over NATS, encoding and decoding JSON as the engine's SDK does. */
async function natsCaller(
  server: string,
  subject: string,
): Promise<{ call: Call; close: () => Promise<void> }> {
  const nc = await natsConnect({ servers: server });
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return {
    call: async (payload) =>
      JSON.parse(
        dec.decode(
          (await nc.request(subject, enc.encode(JSON.stringify(payload)), { timeout: 30_000 }))
            .data,
        ),
      ),
    close: () => nc.close(),
  };
}

async function sequential(call: Call, n: number, bytes: number) {
  for (let i = 0; i < Math.min(200, n); i++) await call(payloadOf(bytes, i)); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = payloadOf(bytes, i);
    const t0 = performance.now();
    await call(p);
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

async function concurrent(call: Call, width: number, durationMs: number, bytes: number) {
  const end = performance.now() + durationMs;
  let done = 0;
  const lane = async () => {
    let i = 0;
    while (performance.now() < end) {
      await call(payloadOf(bytes, i++));
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: width }, lane));
  return { calls: done, perSecond: done / ((performance.now() - t0) / 1000) };
}

const caller = mode === "echo"
  ? await echoCaller(url!)
  : mode === "nats"
  ? await natsCaller(url!, functionId!)
  : await engineCaller(url!, functionId!);
const { close } = caller;
let made = 0;
const call: Call = (payload) => (made++, caller.call(payload));
const cpu0 = process.cpuUsage();
const seq = await sequential(call, seqN, bytes);
const conc = seconds > 0 ? await concurrent(call, inflight, seconds * 1000, bytes) : undefined;
const { user, system } = process.cpuUsage(cpu0);
const cpuMs = { user: user / 1000, system: system / 1000 };
/** Every call of the sequential and concurrent runs (warm-up included): what `cpuMs` covers. */
const calls = made;
const sweep: Record<number, ReturnType<typeof summarize>> = {};
for (const size of kind === "echo" ? sizes : []) {
  sweep[size] = await sequential(
    call,
    size >= 262144 ? Math.max(20, seqN / 20) : Math.max(50, seqN / 4),
    size,
  );
}
await close();
console.log(JSON.stringify({ seq, conc, sweep, cpuMs, calls }));
Deno.exit(0);

/**
 * The measuring side of the queue benchmark, one worker process:
 *   queue_client.ts <ws-url>
 * It provides `bench::sink` and calls it three ways, each with 64 producers
 * (concurrent loops) for BENCH_SECONDS:
 * 1. a plain routed call (the baseline);
 * 2. `TriggerAction.Enqueue({queue: "bench"})` as fast as receipts come back:
 *    enqueues per second, the receipt's latency, and how fast the queue
 *    delivers that backlog;
 * 3. closed loop: each producer enqueues, then waits for its message to
 *    reach `bench::sink` before the next: enqueue-to-delivery latency.
 * Every message goes through the engine and the queue worker. Prints one
 * JSON line of results.
 */
import { registerWorker, TriggerAction } from "../sdk/typescript/mod.ts";
import { summarize } from "./stats.ts";

const [url] = Deno.args;
const seconds = Number(Deno.env.get("BENCH_SECONDS") ?? "10");
const producers = Number(Deno.env.get("BENCH_INFLIGHT") ?? "64");
const PAD = "x".repeat(64);
const now = () => performance.timeOrigin + performance.now();

const worker = registerWorker(url, { worker_name: "bench-queue" });
const waiting = new Map<number, (at: number) => void>();
let delivered = 0;
let lastDelivery = 0;
let drain: { count: number; resolve: () => void } | undefined;
worker.registerFunction("bench::sink", (data: { k: number }) => {
  delivered++;
  lastDelivery = now();
  waiting.get(data.k)?.(lastDelivery);
  waiting.delete(data.k);
  if (drain !== undefined && delivered >= drain.count) drain.resolve();
  return null;
});
await worker.ready();
const enqueueAction = TriggerAction.Enqueue({ queue: "bench" });
const call = (k: number) =>
  worker.trigger({ function_id: "bench::sink", payload: { k, pad: PAD } });
const enqueue = (k: number) =>
  worker.trigger({ function_id: "bench::sink", payload: { k, pad: PAD }, action: enqueueAction });

/** Runs `producers` loops of `step` for `ms`; returns the step latencies and the rate. */
async function load(ms: number, step: (k: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const start = now();
  const end = start + ms;
  await Promise.all(Array.from({ length: producers }, async () => {
    while (now() < end) {
      const t0 = now();
      await step(next++);
      latencies.push(now() - t0);
    }
  }));
  const elapsed = now() - start;
  return { latencies, perSecond: (latencies.length / elapsed) * 1000, start };
}

/** Resolves once `count` messages were delivered since the counter was reset. */
async function drained(count: number): Promise<void> {
  if (delivered >= count) return;
  const { promise, resolve } = Promise.withResolvers<void>();
  drain = { count, resolve };
  const timer = setTimeout(() => resolve(), 120_000);
  await promise;
  clearTimeout(timer);
  drain = undefined;
  if (delivered < count) throw new Error(`Only ${delivered} of ${count} messages delivered`);
}

// Warm-up: the engine, the queue and the SQLite file.
const warm = await load(Math.min(1000, seconds * 200), enqueue);
await drained(warm.latencies.length);
const ms = seconds * 1000;

const baseline = await load(ms, call);

delivered = 0;
const flood = await load(ms, enqueue);
await drained(flood.latencies.length);
const drainSeconds = (lastDelivery - flood.start) / 1000;
const floodDelivered = delivered;

let k = 1_000_000_000;
// A step's latency is from sending the enqueue to the message reaching bench::sink.
const closed = await load(ms, async () => {
  const key = k++;
  const arrived = new Promise<number>((resolve) => waiting.set(key, resolve));
  await enqueue(key);
  await arrived;
});

console.log(JSON.stringify({
  producers,
  call: { perSecond: baseline.perSecond, ...summarize(baseline.latencies) },
  enqueue: { perSecond: flood.perSecond, ...summarize(flood.latencies) },
  delivery: { perSecond: floodDelivered / drainSeconds, messages: floodDelivered },
  endToEnd: { perSecond: closed.perSecond, ...summarize(closed.latencies) },
}));
await worker.shutdown();

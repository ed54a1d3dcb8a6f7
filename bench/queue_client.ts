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
/** The flood's keys start here; the distinct ones delivered are counted, so a duplicate cannot hide a loss. */
const FLOOD = 500_000_000;
const floodSeen = new Set<number>();
let onDelivery: (() => void) | undefined;
worker.registerFunction("bench::sink", (data: { k: number }) => {
  delivered++;
  lastDelivery = now();
  if (data.k >= FLOOD && data.k < 2 * FLOOD) floodSeen.add(data.k);
  waiting.get(data.k)?.(lastDelivery);
  waiting.delete(data.k);
  onDelivery?.();
  return null;
});
await worker.ready();
const enqueueAction = TriggerAction.Enqueue({ queue: "bench" });
const call = (k: number) =>
  worker.trigger({ function_id: "bench::sink", payload: { k, pad: PAD } });
const enqueue = (k: number) =>
  worker.trigger({ function_id: "bench::sink", payload: { k, pad: PAD }, action: enqueueAction });

/** Runs `producers` loops of `step` (keys from `base` up) for `ms`; returns the latencies and the rate. */
async function load(ms: number, step: (k: number) => Promise<unknown>, base = 0) {
  const latencies: number[] = [];
  let next = base;
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

/** Whether `done()` holds once deliveries stop coming, checked on each delivery, for up to 2 minutes. */
async function settled(done: () => boolean): Promise<boolean> {
  if (done()) return true;
  const { promise, resolve } = Promise.withResolvers<void>();
  onDelivery = () => done() && resolve();
  const timer = setTimeout(resolve, 120_000);
  await promise;
  clearTimeout(timer);
  onDelivery = undefined;
  return done();
}

// Warm-up: the engine, the queue and the SQLite file.
const warm = await load(Math.min(1000, seconds * 200), enqueue);
if (!await settled(() => delivered >= warm.latencies.length)) {
  throw new Error(`Warm-up: only ${delivered} of ${warm.latencies.length} messages delivered`);
}
const ms = seconds * 1000;

const baseline = await load(ms, call);

delivered = 0;
const flood = await load(ms, enqueue, FLOOD);
// Not an error when some never arrive: the section reports them as missed.
await settled(() => floodSeen.size >= flood.latencies.length);
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
  delivery: {
    perSecond: floodDelivered / drainSeconds,
    /** Distinct flood messages delivered; `deliveries` counts repeats too. */
    messages: floodSeen.size,
    deliveries: floodDelivered,
  },
  endToEnd: { perSecond: closed.perSecond, ...summarize(closed.latencies) },
}));
await worker.shutdown();

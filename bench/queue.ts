/**
 * Queue benchmark: `engine-queue` on SQLite, driven by `queue_client.ts`
 * with 64 producers: enqueue throughput and latency, the delivery rate of
 * the resulting backlog, and enqueue-to-delivery latency. Baseline: a plain
 * routed call to the same function from the same process, same run.
 */
import { run } from "./procs.ts";
import type { EngineProc } from "./servers.ts";
import { fmtMs, fmtRate, type LatencySummary, ratio } from "./stats.ts";

interface QueueResult {
  producers: number;
  call: LatencySummary & { perSecond: number };
  enqueue: LatencySummary & { perSecond: number };
  delivery: { perSecond: number; messages: number };
  endToEnd: LatencySummary & { perSecond: number };
}

/** The queue worker's config block for the benchmark engine (indented under `workers:`). */
const QUEUE_WORKER = [
  "  - name: engine-queue",
  "    config:",
  "      path: ./queue.db",
  "      queues:",
  "        bench:",
  "          concurrency: 64",
  "",
].join("\n");

export async function queueSection(
  { smoke, startEngine }: {
    smoke: boolean;
    startEngine: (extra: string) => Promise<EngineProc>;
  },
): Promise<{ markdown: string; checks: string[] }> {
  const started = await startEngine(QUEUE_WORKER);
  const { engine, url } = started;
  try {
    await engine.waitFor(/Started worker engine-queue/);
    const text = await run(Deno.execPath(), ["run", "--allow-all", "bench/queue_client.ts", url], {
      BENCH_SECONDS: smoke ? "1" : "8",
    });
    const r = JSON.parse(text.trim().split("\n").pop()!) as QueueResult;
    const markdown = "## Queue: `TriggerAction.Enqueue` through `engine-queue` (SQLite)\n\n" +
      `${r.producers} producers (concurrent loops) in one worker process, which also provides the ` +
      "target function. Baseline: a plain routed call of the same function, same process, same run. " +
      "Enqueue answers once the message is committed to SQLite (WAL, `synchronous: normal`). " +
      "Delivery: queue `bench` with `concurrency: 64`.\n\n" +
      "| measure | rate | p50 | p99 |\n|---|---|---|---|\n" +
      `| routed call (baseline) | ${fmtRate(r.call.perSecond)} | ${fmtMs(r.call.p50)} | ${
        fmtMs(r.call.p99)
      } |\n` +
      `| enqueue, receipt back | ${fmtRate(r.enqueue.perSecond)} | ${fmtMs(r.enqueue.p50)} | ${
        fmtMs(r.enqueue.p99)
      } |\n` +
      `| delivery of that backlog (until drained) | ${fmtRate(r.delivery.perSecond)} | | |\n` +
      `| enqueue → delivery, closed loop | ${fmtRate(r.endToEnd.perSecond)} | ${
        fmtMs(r.endToEnd.p50)
      } | ${fmtMs(r.endToEnd.p99)} |\n`;
    const checks = [
      `| queue: every enqueued message delivered | ${
        r.delivery.messages.toLocaleString("en-US")
      } of ${r.enqueue.n.toLocaleString("en-US")} | ${
        r.delivery.messages >= r.enqueue.n ? "met" : "**missed**"
      } |`,
      `| queue: enqueue at 64 producers ≥ 0.3× a routed call | ${
        ratio(r.enqueue.perSecond, r.call.perSecond)
      } | ${r.enqueue.perSecond >= 0.3 * r.call.perSecond ? "met" : "**missed**"} |`,
      `| queue: a backlog is delivered at ≥ 0.5× the enqueue rate | ${
        ratio(r.delivery.perSecond, r.enqueue.perSecond)
      } | ${r.delivery.perSecond >= 0.5 * r.enqueue.perSecond ? "met" : "**missed**"} |`,
    ];
    return { markdown, checks };
  } finally {
    await started[Symbol.asyncDispose]();
  }
}

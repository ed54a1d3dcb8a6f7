/**
 * One request followed end to end through the engine's traces and logs, with
 * real processes: the engine, a worker on our TypeScript SDK, one on our
 * Python SDK and one on the npm iii-sdk@0.22.1. The hops: HTTP request →
 * global middleware → condition → route middleware → handler A (TypeScript)
 * → B (Python, trigger()) → state::set → state trigger → C (iii-sdk) →
 * enqueue → D (TypeScript, fails its first delivery, then succeeds; each delivery a
 * child of the enqueue span); A also
 * makes a fire-and-forget call.
 */
import assert from "node:assert/strict";
import {
  type EngineProcess,
  ROOT,
  runCli,
  spawnEngine,
  tempConfig,
} from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";
import type { Span } from "../../engine/observability/traces.ts";

interface Entry {
  level: string;
  message: string;
  worker?: string;
  function?: string;
  traceId?: string;
  spanId?: string;
  data?: Record<string, unknown>;
}

const INBOUND = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const BAGGAGE = "tenant=acme,run=1";

const names = (spans: Span[]) => JSON.stringify(spans.map((s) => s.name));

/**
 * One tree: every span's parent is a span of the trace, but the root's (the
 * caller's span `remoteParent`, if any), and no span is its own ancestor.
 */
function checkTree(label: string, spans: Span[], remoteParent: string | undefined): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  assert.equal(byId.size, spans.length, `${label}: span ids are unique`);
  const roots = spans.filter((s) => s.parentSpanId === undefined || !byId.has(s.parentSpanId));
  assert.deepEqual(roots.map((s) => s.name), ["POST /trace/a"], `${label}: one root`);
  assert.equal(roots[0]!.parentSpanId, remoteParent, `${label}: the root's parent`);
  for (const s of spans) {
    const seen = new Set<string>();
    for (let at: Span | undefined = s; at; at = byId.get(at.parentSpanId ?? "")) {
      assert.ok(!seen.has(at.spanId), `${label}: a cycle through ${at.name}`);
      seen.add(at.spanId);
    }
  }
}

/** A synchronous call's span lies inside its caller's (the engine's clock for both). */
function within(label: string, child: Span, parent: Span): void {
  assert.ok(
    child.start >= parent.start &&
      child.start + child.durationMs <= parent.start + parent.durationMs,
    `${label}: ${child.name} [${child.start}, +${child.durationMs}] inside ${parent.name} [${parent.start}, +${parent.durationMs}]`,
  );
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after 15000ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("trace: one request is one trace across HTTP, SDK workers, state, queue and logs", async () => {
  const port = freePort();
  const httpPort = freePort();
  const { file, dir } = await tempConfig(`port: ${port}
console:
  enabled: false
workers:
  - name: engine-http
    config:
      port: ${httpPort}
      middleware:
        - { function_id: trace::mw_global }
  - name: engine-state
    config: { adapter: memory }
  - name: engine-queue
    config:
      adapter: memory
      queues:
        trace: { max_attempts: 3, backoff_ms: 50 }
`);
  const engine: EngineProcess = await spawnEngine({ config: file, cwd: dir });
  const workers: WorkerProcess[] = [];
  let raw: RawWorker | undefined;
  try {
    workers.push(
      await spawnWorker("tests/fixtures/trace/ts_worker.ts", { ENGINE_URL: engine.url }),
      await spawnWorker("tests/fixtures/trace/py_worker.py", {
        ENGINE_URL: engine.url,
        PYTHONPATH: `${ROOT}sdk/python`,
      }, { cmd: "python3", args: ["-u", `${ROOT}tests/fixtures/trace/py_worker.py`] }),
      await spawnWorker("tests/fixtures/trace/iii_worker.ts", {
        ENGINE_URL: engine.url,
        OTEL_ENABLED: "true",
      }, {
        args: ["run", "--allow-all", "--no-lock", `${ROOT}tests/fixtures/trace/iii_worker.ts`],
      }),
    );
    raw = await RawWorker.connect(engine.url);
    await waitForFunctions(raw, ["trace::a", "trace::b", "trace::c", "trace::d"]);
    const call = async (functionId: string, data: unknown) => {
      const f = await raw!.call(functionId, data);
      assert.equal(f.error, undefined, `${functionId}: ${JSON.stringify(f.error)}`);
      return f.result;
    };

    const cases: { name: string; traceparent?: string }[] = [
      { name: "with an inbound traceparent", traceparent: `00-${INBOUND}-${CALLER_SPAN}-01` },
      { name: "without one" },
    ];
    for (const c of cases) {
      const run = crypto.randomUUID();
      const headers: Record<string, string> = {
        "content-type": "application/json",
        baggage: BAGGAGE,
      };
      if (c.traceparent) headers.traceparent = c.traceparent;
      const response = await fetch(`http://127.0.0.1:${httpPort}/trace/a`, {
        method: "POST",
        headers,
        body: JSON.stringify({ run }),
      });
      assert.equal(response.status, 200, `${c.name}: ${await response.text()}`);
      const a = await until(`${c.name}: A's log`, async () => {
        const { logs } = await call("engine::logs::list", { text: run }) as { logs: Entry[] };
        return logs.find((e) => e.message === "hop a");
      });
      const traceId = a.traceId!;
      if (c.traceparent) assert.equal(traceId, INBOUND, `${c.name}: the request's trace goes on`);
      // The last hops: D's second attempt logged, the iii-sdk's handler span exported.
      const spans = await until(`${c.name}: the whole trace`, async () => {
        const { spans } = await call("engine::traces::get", { trace_id: traceId }) as {
          spans: Span[];
        };
        const done = spans.some((s) => s.name === "execute trace::c") &&
          spans.filter((s) => s.name === "trace::d").length === 2;
        return done ? spans : undefined;
      });
      checkTree(c.name, spans, c.traceparent ? CALLER_SPAN : undefined);
      const one = (name: string) => {
        const found = spans.filter((s) => s.name === name);
        assert.equal(found.length, 1, `${c.name}: one span ${name}: ${names(spans)}`);
        return found[0]!;
      };
      const http = one("POST /trace/a");
      const [mwGlobal, cond, mwRoute, handlerA] = [
        "trace::mw_global",
        "trace::cond",
        "trace::mw_route",
        "trace::a",
      ].map(one) as [Span, Span, Span, Span];
      const [voidSink, b, set, cSpan, execC, enqueue] = [
        "trace::void_sink",
        "trace::b",
        "state::set",
        "trace::c",
        "execute trace::c",
        "engine::queue::enqueue",
      ].map(one) as [Span, Span, Span, Span, Span, Span];
      assert.equal(http.kind, "http");
      for (const child of [mwGlobal, cond, mwRoute, handlerA]) {
        assert.equal(child.parentSpanId, http.spanId, `${c.name}: ${child.name} under the request`);
        within(c.name, child, http);
      }
      assert.deepEqual(
        [mwGlobal, cond, mwRoute, handlerA].map((s) => s.name),
        [...[mwGlobal, cond, mwRoute, handlerA]].sort((x, y) => x.start - y.start).map((s) =>
          s.name
        ),
        `${c.name}: global middleware, condition, route middleware, handler in this order`,
      );
      assert.equal(voidSink.parentSpanId, handlerA.spanId, `${c.name}: the void call under A`);
      assert.equal(b.parentSpanId, handlerA.spanId, `${c.name}: B under A`);
      within(c.name, b, handlerA);
      assert.equal(set.parentSpanId, b.spanId, `${c.name}: state::set under B`);
      within(c.name, set, b);
      // The state trigger's call continues the write's trace (it runs after the write answered).
      assert.equal(
        cSpan.parentSpanId,
        set.spanId,
        `${c.name}: the state trigger's call under the write`,
      );
      assert.equal(execC.parentSpanId, cSpan.spanId, `${c.name}: the iii-sdk's handler span`);
      assert.equal(enqueue.parentSpanId, execC.spanId, `${c.name}: the enqueue under C`);
      const deliveries = spans.filter((s) => s.name === "trace::d");
      for (const d of deliveries) {
        // A child of the enqueue call that stored it, not of the handler that enqueued.
        assert.equal(d.parentSpanId, enqueue.spanId, `${c.name}: each delivery under the enqueue`);
        assert.equal(d.worker, "trace-ts");
      }
      assert.deepEqual(
        deliveries.map((d) => [d.status, d.error?.code ?? null]),
        [["error", "flaky"], ["ok", null]],
        `${c.name}: one span per attempt, the failed one with its code`,
      );
      for (const s of spans) {
        if (s.name !== "trace::d") assert.equal(s.status, "ok", `${c.name}: ${s.name} ok`);
      }
      // The hops no caller waits for are marked (they may start after or outlast their parent);
      // the others are not.
      const async = new Set([voidSink, cSpan, ...deliveries].map((s) => s.spanId));
      for (const s of spans) {
        assert.equal(
          s.attributes?.["engine.call.async"],
          async.has(s.spanId) ? true : undefined,
          `${c.name}: ${s.name} marked async or not`,
        );
      }

      // Every handler's log lines are in the trace, placed in their call, with the baggage.
      const { logs } = await call("engine::logs::list", { trace_id: traceId }) as {
        logs: Entry[];
      };
      const hops = logs.filter((e) => e.message.startsWith("hop "));
      const spanOf = new Map(spans.map((s) => [s.spanId, s]));
      const expected: [string, string, string][] = [
        ["hop mw_global", "trace-ts", "trace::mw_global"],
        ["hop cond", "trace-ts", "trace::cond"],
        ["hop mw_route", "trace-ts", "trace::mw_route"],
        ["hop a", "trace-ts", "trace::a"],
        ["hop void_sink", "trace-ts", "trace::void_sink"],
        ["hop b", "trace-py", "trace::b"],
        ["hop b handler", "trace-py", "trace::b"],
        ["hop d first", "trace-ts", "trace::d"],
        ["hop d again", "trace-ts", "trace::d"],
      ];
      for (const [message, worker, fn] of expected) {
        const entry = hops.find((e) => e.message === message);
        assert.ok(entry, `${c.name}: "${message}" in the trace's log: ${JSON.stringify(hops)}`);
        assert.deepEqual([entry.worker, entry.function], [worker, fn], `${c.name}: ${message}`);
        assert.equal(
          spanOf.get(entry.spanId!)?.functionId,
          fn,
          `${c.name}: ${message} in its span`,
        );
        const data = message === "hop b handler" ? entry.data?.data as Entry["data"] : entry.data;
        assert.equal(data?.baggage, BAGGAGE, `${c.name}: ${message} got the request's baggage`);
      }
      // iii-sdk's Logger (over /otel): in the trace, inside its handler's span.
      const cLog = hops.find((e) => e.message === "hop c");
      assert.ok(cLog, `${c.name}: iii-sdk's log line in the trace`);
      assert.equal(cLog.spanId, execC.spanId);
      // `engine logs --trace <id>` prints the trace's lines, and those only.
      const printed = await runCli(["logs", "--url", engine.url, "--trace", traceId.toUpperCase()]);
      assert.equal(printed.code, 0, printed.stderr);
      const lines = printed.stdout.trim().split("\n");
      for (const message of [...expected.map(([m]) => m), "hop c"]) {
        assert.ok(lines.some((l) => l.includes(` ${message} {`)), `${c.name}: ${message} printed`);
      }
      assert.equal(lines.length, logs.length, `${c.name}: only the trace's lines`);
      // Placed in its call once its span (exported after the line) names the call.
      assert.deepEqual([cLog.worker, cLog.function], ["trace-iii", "trace::c"], c.name);
    }
  } finally {
    await raw?.close();
    for (const w of workers) await w.stop();
    await engine.stop();
  }
});

/**
 * Workers using the npm iii-sdk@0.22.1 take part in traces through the
 * protocol's trace fields: a call they make from a handler is a child of
 * their handler span, which they export over `/otel`.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { Span } from "../../engine/observability/traces.ts";
import { spawnWorker } from "../support/worker_process.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";

Deno.test("an iii-sdk handler's trigger() is a child span of its handler, in the caller's trace", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  const worker = await spawnWorker("tests/fixtures/console/iii_traced_worker.ts", {
    ENGINE_URL: engine.url,
    OTEL_ENABLED: "true",
  });
  try {
    const api = engine.builtinApi("engine");
    const registered = Promise.withResolvers<void>();
    const stop = engine.engine.subscribe(() => {
      if (api.hasFunction("iii::relay") && api.hasFunction("iii::hello")) registered.resolve();
    });
    if (api.hasFunction("iii::relay") && api.hasFunction("iii::hello")) registered.resolve();
    await registered.promise;
    stop();

    // The SDK exports its spans in batches: wait for the innermost one.
    const exported = Promise.withResolvers<void>();
    const unsubscribe = engine.traces.ring.subscribe((s) => {
      if (s.traceId === TRACE && s.name === "execute iii::hello") exported.resolve();
    });
    const result = await api.call("iii::relay", { name: "ada" }, {
      traceparent: `00-${TRACE}-b7ad6b7169203331-01`,
    });
    assert.deepEqual(result, { relayed: { greeting: "hello ada from iii" } });
    await exported.promise;
    unsubscribe();

    const spans = engine.traces.trace(TRACE);
    const byName = (name: string) => spans.find((s) => s.name === name) as Span;
    const relay = byName("iii::relay");
    const executeRelay = byName("execute iii::relay");
    const hello = byName("iii::hello");
    const executeHello = byName("execute iii::hello");
    assert.equal(relay.parentSpanId, "b7ad6b7169203331", "the caller's span");
    assert.equal(executeRelay.parentSpanId, relay.spanId, "the SDK's handler span");
    assert.equal(hello.parentSpanId, executeRelay.spanId, "trigger() inside the handler");
    assert.equal(executeHello.parentSpanId, hello.spanId);
    // The telemetry socket is not the worker's connection: spans name the OTel service.
    assert.deepEqual([executeRelay.kind, executeRelay.worker], ["sdk", "iii-node"]);
  } finally {
    await worker.stop();
    await engine.stop();
  }
});

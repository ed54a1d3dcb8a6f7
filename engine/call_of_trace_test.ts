import assert from "node:assert/strict";
import { startEngine } from "./engine.ts";
import { RawWorker, waitForFunctions } from "../tests/support/raw_worker.ts";
import { callOfTrace } from "./call_of_trace.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;

Deno.test("callOfTrace() places a log line of a trace in the call it was written in", async () => {
  const running = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const workers: RawWorker[] = [];
  try {
    const named = async (name: string) => {
      const w = await RawWorker.connect(running.url);
      workers.push(w);
      await w.call("engine::workers::register", { name });
      return w;
    };
    const a = await named("orders");
    const b = await named("mailer");
    const caller = await named("caller");
    const entered = Promise.withResolvers<void>();
    const held = Promise.withResolvers<void>();
    const invokes: Record<string, string> = {};
    a.serve("orders::create", (_d, f) => void (invokes.a = f.traceparent));
    b.serve("mail::send", (_d, f) => {
      invokes.b = f.traceparent;
      entered.resolve();
      return held.promise;
    });
    await waitForFunctions(caller, ["orders::create", "mail::send"]);
    const { engine } = running;
    assert.equal(callOfTrace(engine, TRACE), undefined, "no call in the trace yet");

    caller.send({
      type: "invokefunction",
      invocation_id: "c1",
      function_id: "orders::create",
      data: {},
      traceparent,
    });
    await caller.next((f) => f.invocation_id === "c1");
    // Ended, its span recorded: the one worker call of the trace.
    assert.deepEqual(callOfTrace(engine, TRACE), {
      worker: "orders",
      functionId: "orders::create",
    });

    caller.send({
      type: "invokefunction",
      invocation_id: "c2",
      function_id: "mail::send",
      data: {},
      traceparent,
    });
    await entered.promise;
    // Two worker calls in the trace: a log line without its span cannot be placed.
    assert.equal(callOfTrace(engine, TRACE), undefined);
    // With the SDK's span (child of the engine's span of mail::send), it can.
    const mailSpan = invokes.b!.split("-")[2]!;
    engine.traces.record({
      traceId: TRACE,
      spanId: "aaaaaaaaaaaaaaaa",
      parentSpanId: mailSpan,
      kind: "sdk",
      name: "mail::send",
      start: Date.now(),
      durationMs: 0,
      status: "ok",
    });
    assert.deepEqual(callOfTrace(engine, TRACE, "aaaaaaaaaaaaaaaa"), {
      worker: "mailer",
      functionId: "mail::send",
    });
    held.resolve();
    await caller.next((f) => f.invocation_id === "c2");
  } finally {
    for (const w of workers) await w.close();
    await running.stop();
  }
});

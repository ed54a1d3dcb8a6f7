import assert from "node:assert/strict";
import { EngineError, Logger, TriggerAction } from "./mod.ts";
import { PendingCalls } from "./calls.ts";
import type { Json } from "./_testing/engine_peer.ts";
import { TRACEPARENT, withWorker } from "./_testing/with_worker.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("an inbound invokefunction is answered with an invocationresult", async (t) => {
  await withWorker(async ({ worker, conn }) => {
    worker.registerFunction("demo::echo", (payload, ctx) => ({ payload, ctx }));
    worker.registerFunction("demo::void", () => undefined);
    worker.registerFunction("demo::boom", () => {
      throw new Error("boom");
    });
    worker.registerFunction("demo::coded", async () => {
      await Promise.resolve();
      throw new EngineError("bad_input", "sku is required");
    });
    worker.registerFunction("demo::string", () => {
      throw "just a string";
    });
    worker.registerFunction("demo::thrown", (value) => {
      throw value;
    });
    worker.registerFunction("demo::unreadable", () => {
      throw Object.defineProperty(new Error("x"), "message", {
        get() {
          throw new Error("getter");
        },
      });
    });
    await conn.waitFor((f) => f.type === "registerfunction" && f.id === "demo::string");

    await t.step("result, with metadata, context and the traceparent echoed", async () => {
      const res = await conn.invoke("demo::echo", { a: "hi", _caller_worker_id: "w-9" }, {
        metadata: { k: "v" },
        traceparent: TRACEPARENT,
      });
      assert.equal(res.function_id, "demo::echo");
      assert.equal(res.traceparent, TRACEPARENT);
      assert.equal(res.error, undefined);
      const { payload, ctx } = res.result as { payload: Json; ctx: Json };
      assert.deepEqual(payload, { a: "hi", _caller_worker_id: "w-9" });
      assert.deepEqual(ctx, {
        functionId: "demo::echo",
        invocationId: res.invocation_id,
        metadata: { k: "v" },
        traceparent: TRACEPARENT,
        callerWorkerId: "w-9",
      });
    });
    await t.step("a handler returning undefined gives no result field", async () => {
      const res = await conn.invoke("demo::void", {});
      assert.deepEqual(Object.keys(res).sort(), ["function_id", "invocation_id", "type"]);
    });
    await t.step("a thrown Error gives invocation_failed with its stack", async () => {
      const { error } = await conn.invoke("demo::boom", {}) as { error: Json };
      assert.equal(error.code, "invocation_failed");
      assert.equal(error.message, "boom");
      assert.match(String(error.stacktrace), /^Error: boom\n\s+at /);
    });
    await t.step("an error with its own code keeps that code", async () => {
      const { error } = await conn.invoke("demo::coded", {}) as { error: Json };
      assert.equal(error.code, "bad_input");
      assert.equal(error.message, "sku is required");
    });
    await t.step("a thrown non-Error gives its string and no stack", async () => {
      const { error } = await conn.invoke("demo::string", {});
      assert.deepEqual(error, { code: "invocation_failed", message: "just a string" });
    });
    await t.step("a thrown plain object keeps its code and is shown as JSON", async () => {
      const cases: [unknown, Json][] = [
        [{ code: "bad_input" }, { code: "bad_input", message: '{"code":"bad_input"}' }],
        [{ code: "bad_input", message: "no sku" }, { code: "bad_input", message: "no sku" }],
        [{ reason: "x" }, { code: "invocation_failed", message: '{"reason":"x"}' }],
        [null, { code: "invocation_failed", message: "null" }],
      ];
      for (const [thrown, expected] of cases) {
        const { error } = await conn.invoke("demo::thrown", thrown);
        assert.deepEqual(error, expected, JSON.stringify(thrown));
      }
    });
    await t.step("an error that throws when read still answers its caller", async () => {
      const { error } = await conn.invoke("demo::unreadable", {});
      assert.deepEqual(error, {
        code: "invocation_failed",
        message: "Error (reading the thrown value raised Error)",
      });
      // The worker is still alive and answering.
      assert.deepEqual((await conn.invoke("demo::void", {})).error, undefined);
    });
    await t.step("an unknown function gives function_not_found", async () => {
      const { error } = await conn.invoke("does::not::exist", {});
      assert.deepEqual(error, { code: "function_not_found", message: "Function not found" });
    });
  });
});

Deno.test("trigger() resolves with the result and rejects with EngineError", async (t) => {
  await withWorker(async ({ worker, conn }) => {
    const answer = async (extra: Json) => {
      const call = await conn.waitFor((f) =>
        f.type === "invokefunction" && f.function_id === "remote::fn" && !f.done
      );
      call.done = true;
      assert.match(String(call.invocation_id), UUID);
      conn.send({
        type: "invocationresult",
        invocation_id: call.invocation_id,
        function_id: "remote::fn",
        ...extra,
      });
      return call;
    };
    await t.step("result", async () => {
      const [result, call] = await Promise.all([
        worker.trigger({ function_id: "remote::fn", payload: { x: 1 }, metadata: { m: 1 } }),
        answer({ result: { y: 2 } }),
      ]);
      assert.deepEqual(result, { y: 2 });
      assert.deepEqual(
        { ...call, invocation_id: "<id>", done: undefined },
        {
          type: "invokefunction",
          invocation_id: "<id>",
          function_id: "remote::fn",
          data: { x: 1 },
          metadata: { m: 1 },
          done: undefined,
        },
      );
    });
    await t.step("error body", async () => {
      const call = worker.trigger({ function_id: "remote::fn", payload: {} });
      await answer({
        error: { code: "function_not_found", message: "Function remote::fn not found" },
      });
      await assert.rejects(call, (err) => {
        assert.ok(err instanceof EngineError);
        assert.equal(err.code, "function_not_found");
        assert.equal(err.message, "Function remote::fn not found");
        assert.equal(err.function_id, "remote::fn");
        return true;
      });
    });
    await t.step("an error that is not an ErrorBody gives UNKNOWN", async () => {
      const call = worker.trigger({ function_id: "remote::fn", payload: {} });
      await answer({ error: "plain string error" });
      await assert.rejects(call, { code: "UNKNOWN", message: "plain string error" });
    });
    await t.step("no answer within timeoutMs gives TIMEOUT", async () => {
      await assert.rejects(
        worker.trigger({ function_id: "slow::fn", payload: {}, timeoutMs: 50 }),
        (err) => {
          assert.ok(err instanceof EngineError);
          assert.equal(err.code, "TIMEOUT");
          assert.equal(err.message, "Invocation of slow::fn timed out after 50ms");
          return true;
        },
      );
    });
    await t.step("void has no invocation_id and resolves at once", async () => {
      assert.equal(
        await worker.trigger({
          function_id: "fire::forget",
          payload: { z: 1 },
          action: TriggerAction.Void(),
        }),
        undefined,
      );
      const call = await conn.waitType("invokefunction", "fire::forget");
      assert.deepEqual(call, {
        type: "invokefunction",
        function_id: "fire::forget",
        data: { z: 1 },
        action: { type: "void" },
      });
    });
    await t.step("enqueue carries the queue and waits for the receipt", async () => {
      const call = worker.trigger({
        function_id: "queued::fn",
        payload: { q: 1 },
        action: TriggerAction.Enqueue({ queue: "jobs" }),
      });
      const frame = await conn.waitType("invokefunction", "queued::fn");
      assert.deepEqual(frame.action, { type: "enqueue", queue: "jobs" });
      conn.send({
        type: "invocationresult",
        invocation_id: frame.invocation_id,
        function_id: "queued::fn",
        result: { messageReceiptId: "r-1" },
      });
      assert.deepEqual(await call, { messageReceiptId: "r-1" });
    });
  });
});

Deno.test("a traceparent flows from an inbound call to the calls its handler makes", async () => {
  await withWorker(async ({ worker, conn }) => {
    worker.registerFunction("chain::outer", async () => {
      await new Promise((r) => setTimeout(r, 5)); // the context survives awaits and timers
      return await worker.trigger({ function_id: "chain::inner", payload: {} });
    });
    await conn.waitType("registerfunction");
    const result = conn.invoke("chain::outer", {}, { traceparent: TRACEPARENT, baggage: "k=v" });
    const inner = await conn.waitType("invokefunction", "chain::inner");
    assert.equal(inner.traceparent, TRACEPARENT);
    assert.equal(inner.baggage, "k=v");
    conn.send({
      type: "invocationresult",
      invocation_id: inner.invocation_id,
      function_id: "chain::inner",
      result: 7,
    });
    assert.equal((await result).result, 7);

    void worker.trigger({
      function_id: "outside::handler",
      payload: {},
      action: TriggerAction.Void(),
    });
    const outside = await conn.waitType("invokefunction", "outside::handler");
    assert.equal(outside.traceparent, undefined);
  });
});

Deno.test("Logger sends engine::log::<level> tagged with the handler's function and trace", async () => {
  const logger = new Logger();
  await withWorker(async ({ worker, conn }) => {
    worker.registerFunction("orders::create", (order: { sku: string }) => {
      logger.info("Creating order", { sku: order.sku, err: new Error("kept") });
      return { ok: true };
    });
    await conn.waitType("registerfunction");
    await conn.invoke("orders::create", { sku: "A-1" }, { traceparent: TRACEPARENT });
    const log = await conn.waitType("invokefunction", "engine::log::info");
    assert.equal(log.invocation_id, undefined);
    assert.deepEqual(log.action, { type: "void" });
    assert.equal(log.traceparent, TRACEPARENT);
    const data = log.data as Json;
    assert.equal(data.message, "Creating order");
    assert.equal(data.function_id, "orders::create");
    assert.equal(data.trace_id, "0af7651916cd43dd8448eb211c80319c");
    assert.equal(data.span_id, "b7ad6b7169203331");
    const extra = data.data as { sku: string; err: Json };
    assert.equal(extra.sku, "A-1");
    assert.equal(extra.err.message, "kept");

    logger.warn("outside any handler");
    const warn = await conn.waitType("invokefunction", "engine::log::warn");
    assert.deepEqual(warn.data, { message: "outside any handler" });
  });
});

Deno.test("Logger tags logs with lower-case ids when the inbound traceparent is upper case", async () => {
  const logger = new Logger();
  await withWorker(async ({ worker, conn }) => {
    worker.registerFunction("orders::create", () => logger.info("Creating order"));
    await conn.waitType("registerfunction");
    await conn.invoke("orders::create", {}, { traceparent: TRACEPARENT.toUpperCase() });
    const data = (await conn.waitType("invokefunction", "engine::log::info")).data as Json;
    assert.equal(data.trace_id, "0af7651916cd43dd8448eb211c80319c");
    assert.equal(data.span_id, "b7ad6b7169203331");
  });
});

Deno.test("Logger falls back to console without a worker", () => {
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => lines.push(args);
  try {
    new Logger().error("no worker", { a: 1 });
  } finally {
    console.error = original;
  }
  assert.deepEqual(lines, [["no worker", { a: 1 }]]);
});

Deno.test("PendingCalls times out each call at its own deadline with one shared timer", async () => {
  const calls = new PendingCalls();
  const order: string[] = [];
  const late = calls.wait("late", "a::late", 120).catch((e: EngineError) =>
    order.push(`late ${e.code}`)
  );
  const early = calls.wait("early", "a::early", 30).catch((e: EngineError) =>
    order.push(`early ${e.code}`)
  );
  const settled = calls.wait("ok", "a::ok", 60);
  calls.settle({ invocation_id: "ok", result: 1 });
  assert.equal(await settled, 1);
  await Promise.all([early, late]);
  assert.deepEqual(order, ["early TIMEOUT", "late TIMEOUT"]);
  assert.equal(calls.has("early") || calls.has("late"), false);
});

Deno.test("PendingCalls does not keep the process alive once no call waits", async () => {
  const script = `import { PendingCalls } from ${
    JSON.stringify(new URL("./calls.ts", import.meta.url).href)
  };
const calls = new PendingCalls();
const p = calls.wait("id", "a::b", 60_000);
calls.settle({ invocation_id: "id", result: "done" });
console.log(await p);`;
  const started = Date.now();
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", script], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "done");
  assert.ok(Date.now() - started < 30_000, "exits without waiting for the 60 s deadline");
});

Deno.test("trigger() refuses a timeoutMs it cannot wait for, naming the function", async () => {
  // NaN or a string made a deadline no timer fires at: without an answer the call never settled.
  await withWorker(async ({ worker, conn }) => {
    const cases: [timeoutMs: unknown, shown: string][] = [
      [Number.NaN, "NaN"],
      ["100", '"100"'],
      [0, "0"],
      [-5, "-5"],
      [Infinity, "Infinity"],
    ];
    for (const [timeoutMs, shown] of cases) {
      await assert.rejects(
        worker.trigger({ function_id: "slow::fn", payload: {}, timeoutMs: timeoutMs as number }),
        (err: Error) => {
          assert.ok(err instanceof TypeError, shown);
          assert.equal(
            err.message,
            `Invalid "timeoutMs" of the call to "slow::fn": expected a number above 0, got ${shown}`,
          );
          return true;
        },
      );
    }
    // None of them went out: the next frame the engine sees is this call.
    void worker.trigger({ function_id: "next::fn", payload: {}, action: TriggerAction.Void() });
    const next = await conn.waitFor((f) =>
      f.type === "invokefunction" && f.function_id !== "engine::workers::register"
    );
    assert.equal(next.function_id, "next::fn");
  });
});

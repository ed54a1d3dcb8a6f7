import assert from "node:assert/strict";
import { type EngineError, Logger, registerWorker } from "./mod.ts";
import { ScriptedEngine } from "./_testing/engine_peer.ts";
import { startRawServer } from "./_testing/raw_server.ts";
import { FAST } from "./_testing/with_worker.ts";
import { Opcode } from "./websocket/frame.ts";

Deno.test("after the engine drops the connection the worker reattaches and replays", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  try {
    worker.registerTriggerType({ id: "my-tt", description: "custom" }, {
      registerTrigger() {},
      unregisterTrigger() {},
    });
    worker.registerFunction("demo::a", () => 1);
    const trigger = worker.registerTrigger({
      type: "my-tt",
      function_id: "demo::a",
      config: { every: 5 },
    });
    const first = await engine.connection(0);
    await first.waitType("invokefunction", "engine::workers::register");
    await first.waitType("registertrigger");

    first.close(1011, "engine restarting");
    await first.closed;
    const queued = worker.trigger({ function_id: "while::down", payload: {} });
    const timedOut = worker.trigger({ function_id: "stale::call", payload: {}, timeoutMs: 1 });
    await assert.rejects(timedOut, { code: "TIMEOUT" });

    const second = await engine.connection(1);
    await second.waitType("invokefunction", "engine::workers::register");
    assert.deepEqual(second.frames.map((f) => `${f.type} ${f.id ?? f.function_id ?? ""}`.trim()), [
      "reattach",
      "registertriggertype my-tt",
      "registerfunction demo::a",
      `registertrigger ${trigger.id}`,
      "invokefunction while::down",
      "invokefunction engine::workers::register",
    ]);
    assert.deepEqual(second.frames[0], {
      type: "reattach",
      previous_worker_id: "w-1",
      reattach_token: "tok-1",
    });
    const call = second.frames[4]!;
    second.send({
      type: "invocationresult",
      invocation_id: call.invocation_id,
      function_id: "while::down",
      result: "ok",
    });
    assert.equal(await queued, "ok");
    await worker.ready();
    assert.equal(worker.workerId, "w-2");
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("a call sent on a connection that closes fails at once with invocation_stopped", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  try {
    await worker.ready();
    const first = await engine.connection(0);
    const lost = worker.trigger({ function_id: "slow::op", payload: {}, timeoutMs: 60_000 });
    await first.waitType("invokefunction", "slow::op");
    first.close(1011, "engine restarting");
    await assert.rejects(lost, (err: EngineError) => {
      assert.equal(err.code, "invocation_stopped");
      assert.equal(err.function_id, "slow::op");
      assert.equal(
        err.message,
        `Invocation stopped: the connection to the engine at ${engine.url} closed (code 1011: engine restarting) before "slow::op" answered; it may have run`,
      );
      return true;
    });
    // A call made while disconnected is queued, not failed, and answered on the next connection.
    const queued = worker.trigger({ function_id: "later::op", payload: {}, timeoutMs: 60_000 });
    const second = await engine.connection(1);
    const call = await second.waitType("invokefunction", "later::op");
    second.send({ type: "invocationresult", invocation_id: call.invocation_id, result: "ok" });
    assert.equal(await queued, "ok");
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("a call that times out before any connection opens says it was never sent", async () => {
  const engine = new ScriptedEngine({ refuse: () => new Response("no", { status: 503 }) });
  const worker = registerWorker(engine.url, FAST);
  try {
    await assert.rejects(worker.trigger({ function_id: "a::b", payload: {}, timeoutMs: 50 }), {
      code: "TIMEOUT",
      message:
        "Invocation of a::b timed out after 50ms: not connected to the engine, so the call was never sent",
    });
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("the worker keeps retrying while the upgrade is refused", async () => {
  let refusals = 0;
  const engine = new ScriptedEngine({
    refuse: () => (refusals++ < 2 ? new Response("no", { status: 503 }) : undefined),
  });
  const worker = registerWorker(engine.url, FAST);
  try {
    await worker.ready();
    assert.equal(refusals, 3);
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("the worker pings, and drops and reopens a connection that stays silent", async () => {
  const server = startRawServer(); // never answers pings, never sends anything
  const worker = registerWorker(server.url, {
    ...FAST,
    heartbeatIntervalMs: 20,
    idleTimeoutMs: 120,
  });
  try {
    const first = await server.connection(0);
    await first.waitFrame((f) => f.opcode === Opcode.Ping);
    const t0 = performance.now();
    await first.ended;
    const silentFor = performance.now() - t0;
    assert.ok(silentFor < 1000, `terminated after ${silentFor.toFixed(0)}ms`);
    const second = await server.connection(1);
    await second.waitFrame((f) => f.opcode === Opcode.Ping);
  } finally {
    await server.close(); // first, or shutdown() waits for a close frame this server never sends
    await worker.shutdown();
  }
});

Deno.test("after the event loop was held up, a connection that stays silent is still dropped", async () => {
  const server = startRawServer(); // never answers pings, never sends anything
  const worker = registerWorker(server.url, {
    ...FAST,
    heartbeatIntervalMs: 20,
    idleTimeoutMs: 120,
  });
  try {
    const first = await server.connection(0);
    await first.waitFrame((f) => f.opcode === Opcode.Ping);
    // Time the loop was held up does not count as silence, but the silence after it does.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 240);
    await first.ended;
    const second = await server.connection(1);
    await second.waitFrame((f) => f.opcode === Opcode.Ping);
  } finally {
    await server.close(); // first, or shutdown() waits for a close frame this server never sends
    await worker.shutdown();
  }
});

Deno.test("an idle deadline below the heartbeat interval keeps a quiet, live connection", async () => {
  const engine = new ScriptedEngine(); // answers pings (Deno's server does), sends nothing else
  const worker = registerWorker(engine.url, {
    ...FAST,
    heartbeatIntervalMs: 20_000,
    idleTimeoutMs: 100,
  });
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
  try {
    await worker.ready();
    // Five idle deadlines: without a ping before each, every one dropped the connection.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(engine.connections.length, 1);
    assert.deepEqual(warnings, []);
  } finally {
    console.warn = warn;
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("shutdown() closes with 1000 and rejects pending calls with code shutdown", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  await worker.ready();
  const conn = await engine.connection(0);
  const pending = worker.trigger({ function_id: "never::answered", payload: {} });
  await conn.waitType("invokefunction", "never::answered");
  const rejected = assert.rejects(pending, {
    name: "EngineError",
    code: "shutdown",
    message: "Invocation of never::answered stopped: the worker is shutting down",
  });
  await worker.shutdown();
  await rejected;
  await conn.closed;
  assert.equal(conn.closeEvent?.code, 1000);
  await assert.rejects(worker.trigger({ function_id: "a::b", payload: {} }), { code: "shutdown" });
  await assert.rejects(worker.ready(), { code: "shutdown" });
  await engine.close();
});

Deno.test("shutdown() lets running handlers send their results, and refuses new calls meanwhile", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let release!: (value: string) => void;
  worker.registerFunction("slow::fn", async () => {
    started();
    const value = await new Promise<string>((resolve) => (release = resolve));
    new Logger().info("logged while draining");
    return value;
  });
  try {
    const conn = await engine.connection(0);
    await conn.waitType("registerfunction");
    const slow = conn.invoke("slow::fn", {});
    await running;
    const done = worker.shutdown();
    const refused = await conn.invoke("slow::fn", {});
    assert.deepEqual(refused.error, { code: "shutdown", message: "Worker is shutting down" });
    release("finished");
    assert.equal((await slow).result, "finished");
    await done;
    await conn.closed;
    assert.equal(conn.closeEvent?.code, 1000);
    assert.ok(conn.frames.some((f) => f.function_id === "engine::log::info"));
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

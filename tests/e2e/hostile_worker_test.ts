/**
 * A hostile worker: fuzzed frames, and a worker that stops reading its
 * socket. The engine never crashes, answers with errors, bounds what it
 * buffers, and everyone else keeps being served.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { eventually } from "../support/local_worker.ts";

/** A small seeded PRNG (mulberry32) so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID: Frame[] = [
  { type: "registerfunction", id: "fuzz::fn" },
  { type: "unregisterfunction", id: "fuzz::fn" },
  {
    type: "registertrigger",
    id: "t1",
    trigger_type: "http",
    function_id: "fuzz::fn",
    config: { api_path: "/x" },
  },
  { type: "unregistertrigger", id: "t1" },
  { type: "registertriggertype", id: "tt", description: "d" },
  { type: "triggerregistrationresult", id: "t1", trigger_type: "tt", function_id: "fuzz::fn" },
  {
    type: "invokefunction",
    invocation_id: "4ef26548-4672-45e5-8eda-2d8f6cfda801",
    function_id: "good::echo",
    data: { a: 1 },
  },
  { type: "invokefunction", function_id: "good::echo", data: 1, action: { type: "void" } },
  {
    type: "invocationresult",
    invocation_id: "4ef26548-4672-45e5-8eda-2d8f6cfda801",
    function_id: "x::y",
    result: 1,
  },
  { type: "reattach", previous_worker_id: "nobody", reattach_token: "x" },
  { type: "ping" },
];

const WEIRD_VALUES = [
  null,
  true,
  -1,
  1e308,
  "",
  "x".repeat(10_000),
  [],
  {},
  [[[[]]]],
  { "__proto__": { polluted: 1 } },
  "\u0000\uffff",
  3.14,
];

function mutate(rand: () => number): string | Uint8Array {
  const r = rand();
  if (r < 0.1) return crypto.getRandomValues(new Uint8Array(1 + Math.floor(rand() * 300)));
  if (r < 0.15) {
    return "[".repeat(1 + Math.floor(rand() * 5000)) + "]".repeat(Math.floor(rand() * 10));
  }
  if (r < 0.2) return `{"type":"${"registerfunction".slice(0, Math.floor(rand() * 16))}`;
  const frame: Frame = structuredClone(VALID[Math.floor(rand() * VALID.length)]!);
  const keys = Object.keys(frame);
  const key = keys[Math.floor(rand() * keys.length)]!;
  if (r < 0.55) frame[key] = WEIRD_VALUES[Math.floor(rand() * WEIRD_VALUES.length)];
  else if (r < 0.7) delete frame[key];
  else if (r < 0.8) {
    frame[`extra_${Math.floor(rand() * 1000)}`] =
      WEIRD_VALUES[Math.floor(rand() * WEIRD_VALUES.length)];
  } else if (r < 0.9) frame.id = "ns::" + "a".repeat(Math.floor(rand() * 2000));
  else {
    const text = JSON.stringify(frame);
    return text.slice(0, Math.floor(rand() * text.length));
  }
  return JSON.stringify(frame);
}

Deno.test("fuzzed frames from a hostile worker never crash the engine or disturb other workers", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const good = await RawWorker.connect(engine.url);
  const caller = await RawWorker.connect(engine.url);
  good.serve("good::echo", (d) => d);
  await waitForFunctions(caller, ["good::echo"]);
  const hostile = await RawWorker.connect(engine.url);
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Date.now() % 100_000);
  const rand = prng(seed);
  const rounds = 2000;
  try {
    for (let i = 0; i < rounds; i++) {
      hostile.send(mutate(rand));
      if (i % 200 === 0) {
        const r = await caller.call("good::echo", { round: i });
        assert.deepEqual(
          r.result,
          { round: i },
          `seed ${seed}: the good worker is served during the fuzzing`,
        );
      }
    }
    hostile.send({ type: "ping" });
    await hostile.next((f) => f.type === "pong", { timeoutMs: 10_000 });
    assert.ok(
      hostile.frames.some((f) => f.type === "error"),
      "the hostile worker is told what was wrong",
    );
    const unexpected = [...good.frames, ...caller.frames].filter((f) =>
      f.type !== "workerregistered" && f.type !== "invocationresult" && f.type !== "invokefunction"
    );
    assert.deepEqual(unexpected, [], `seed ${seed}: others saw nothing of it`);
    const health = await caller.call("engine::health::check", {});
    assert.equal(health.result.status, "ok");
  } finally {
    await hostile.close();
    await good.close();
    await caller.close();
    await engine.stop();
  }
});

/** An engine whose per-worker backlog is small (2 MiB) and whose calls time out after 3 s. */
function backloggedEngine() {
  return startEngine({
    port: 0,
    shutdownGraceMs: 0,
    maxBacklogBytes: 2 * 1024 * 1024,
    invocationTimeoutMs: 3000,
  });
}

Deno.test("a replica that stops reading: its calls go to the other replica instead of failing with overloaded", async () => {
  const engine = await backloggedEngine();
  const caller = await RawWorker.connect(engine.url);
  const stalled = await stalledWorker(engine.port, "img::resize");
  const good = await RawWorker.connect(engine.url);
  try {
    await waitForFunctions(caller, ["img::resize"]);
    // Big calls fill the stalled replica's backlog while it is the only one.
    const big = "y".repeat(256 * 1024);
    let failedEarly = 0;
    const filling = Promise.all(
      Array.from(
        { length: 60 },
        () => caller.call("img::resize", { big }).finally(() => failedEarly++),
      ),
    );
    filling.catch(() => {}); // awaited below; the connection may close first when a check fails
    const stalledWorker = [...engine.engine.workers.values()].find((w) =>
      engine.engine.functions.ofOwner(w.id).includes("img::resize")
    )!;
    // Every big call has reached the engine: stuck in the stalled replica, or failed at once.
    await eventually(
      () =>
        stalledWorker.peer.overloaded &&
        failedEarly + engine.engine.invocations.inFlight(stalledWorker.id) === 60,
      "the stalled replica's backlog to fill with the 60 big calls",
      5000,
    );
    let served = 0;
    good.serve("img::resize", async () => {
      served++;
      // Busier than the stalled replica (fewest in flight would pick it) until the calls end.
      await new Promise((r) => setTimeout(r, 100));
      return "good";
    });
    await eventually(async () => {
      const list = await caller.call("engine::functions::list", { prefix: "img::" });
      return list.result.functions[0]?.replicas === 2;
    }, "the engine to list both replicas of img::resize");
    const results = await Promise.all(
      Array.from({ length: 40 }, () => caller.call("img::resize", {})),
    );
    assert.deepEqual(
      results.map((r) => r.error?.code ?? r.result),
      Array(40).fill("good"),
      "the reading replica takes every call the stalled one cannot",
    );
    assert.ok(served >= 40, `served ${served}`);
    // The big calls: stuck in the stalled replica, failed before the other one came, or served.
    for (const r of await filling) {
      const outcome = r.error?.code ?? r.result;
      assert.ok(["invocation_timeout", "overloaded", "good"].includes(outcome), outcome);
    }
  } finally {
    stalled.close();
    await caller.close();
    await good.close();
    await engine.stop();
  }
});

/** A WebSocket client that completes the handshake, registers a function, then never reads again. */
async function stalledWorker(port: number, functionId: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  await conn.write(new TextEncoder().encode(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  ));
  const buf = new Uint8Array(4096);
  await conn.read(buf); // the 101 response (and maybe workerregistered)
  const payload = new TextEncoder().encode(
    JSON.stringify({ type: "registerfunction", id: functionId }),
  );
  const frame = new Uint8Array(2 + 4 + payload.length);
  frame[0] = 0x81;
  frame[1] = 0x80 | payload.length;
  // mask key of zeros: the payload stays as is
  frame.set(payload, 6);
  await conn.write(frame);
  return conn;
}

Deno.test("a worker that stops reading: calls to it fail with overloaded, memory stays bounded, others are served", async () => {
  const engine = await backloggedEngine();
  const stalled = await stalledWorker(engine.port, "stuck::sink");
  const caller = await RawWorker.connect(engine.url);
  const good = await RawWorker.connect(engine.url);
  good.serve("good::echo", (d) => d);
  await waitForFunctions(caller, ["stuck::sink", "good::echo"]);
  try {
    const big = "y".repeat(256 * 1024);
    const calls = Array.from({ length: 60 }, () => caller.call("stuck::sink", { big }));
    const results = await Promise.all(calls);
    const codes = new Set(results.map((r) => r.error?.code));
    assert.ok(
      codes.has("overloaded"),
      `some calls fail fast once the backlog is full: ${[...codes]}`,
    );
    for (const r of results) {
      assert.ok(
        ["overloaded", "invocation_timeout", "invocation_stopped"].includes(r.error?.code),
        JSON.stringify(r.error),
      );
    }
    const overloaded = results.find((r) => r.error?.code === "overloaded")!;
    assert.match(
      overloaded.error.message,
      /^Cannot call stuck::sink: worker "[^"]+" is not reading its socket \(\d+ bytes queued\)/,
    );
    const r = await good.call("good::echo", { still: "served" });
    assert.deepEqual(r.result, { still: "served" });
    const worker = [...engine.engine.workers.values()].find((w) =>
      engine.engine.functions.ofOwner(w.id).includes("stuck::sink")
    );
    assert.ok(
      worker,
      "the stalled worker is still connected (its calls failed, it was not dropped)",
    );
    assert.ok(worker.peer.backlog < 8 * 1024 * 1024, `backlog bounded: ${worker.peer.backlog}`);
  } finally {
    stalled.close();
    await caller.close();
    await good.close();
    await engine.stop();
  }
});

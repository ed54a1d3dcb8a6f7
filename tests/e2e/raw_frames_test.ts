/**
 * The engine driven with raw protocol frames over real sockets.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { withEngine } from "../support/in_process_engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

Deno.test("engine sends workerregistered with a worker id and reattach token on connect", () =>
  withEngine(async (url) => {
    const w = await RawWorker.connect(url);
    const f = w.frames[0]!;
    assert.equal(f.type, "workerregistered");
    assert.match(f.worker_id, UUID);
    assert.match(f.reattach_token, UUID);
    await w.close();
  }));

Deno.test("a call from one worker reaches another and its result comes back under the caller's id", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    b.serve("math::add", (d) => {
      const { x, y } = d as { x: number; y: number };
      return { sum: x + y };
    });
    await waitForFunctions(a, ["math::add"]);
    const r = await a.call("math::add", { x: 2, y: 3 });
    assert.deepEqual(r.result, { sum: 5 });
    assert.equal(r.function_id, "math::add");
    const seen = b.frames.find((f) => f.type === "invokefunction")!;
    assert.deepEqual(seen.data, { x: 2, y: 3 }, "the payload arrives unchanged");
    assert.match(seen.invocation_id, UUID);
    assert.match(seen.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await a.close();
    await b.close();
  }));

Deno.test("calling an unregistered function fails at once with function_not_found", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const r = await a.call("missing::fn", {});
    assert.deepEqual(r.error, {
      code: "function_not_found",
      message: "Function missing::fn not found",
    });
    await a.close();
  }));

Deno.test("a function's error reaches the caller with its code and message", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    b.serve("orders::fail", () => {
      throw Object.assign(new Error("no stock"), { code: "OUT_OF_STOCK" });
    });
    await waitForFunctions(a, ["orders::fail"]);
    const r = await a.call("orders::fail", {});
    assert.deepEqual(r.error, { code: "OUT_OF_STOCK", message: "no stock" });
    await a.close();
    await b.close();
  }));

Deno.test("malformed frames get an error frame and the connection stays usable", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const cases: [string, string, RegExp][] = [
      ["{not json", "invalid_json", /not valid JSON/],
      ['"just a string"', "invalid_frame", /must be a JSON object/],
      ['{"no_type":1}', "invalid_frame", /no "type" field/],
      ['{"type":"bogus"}', "unknown_frame_type", /"bogus" is not part of the protocol/],
      ['{"type":"registerfunction","id":42}', "invalid_frame", /field "id"/],
      [
        '{"type":"invokefunction","function_id":"a::b","invocation_id":7,"data":{}}',
        "invalid_frame",
        /invocation_id/,
      ],
      [
        '{"type":"registerfunction","id":"nocolons"}',
        "invalid_function_id",
        /"nocolons".*two or more parts/,
      ],
      ["[".repeat(10_000), "invalid_frame", /nested more than/],
    ];
    for (const [text, code, message] of cases) {
      const err = a.next((f) => f.type === "error");
      a.send(text);
      const f = await err;
      assert.equal(f.error.code, code, text.slice(0, 40));
      assert.match(f.error.message, message);
      a.frames.length = 0;
    }
    const r = await a.call("engine::health::check", {});
    assert.equal(r.result.status, "ok");
    await a.close();
  }));

Deno.test("a refused call or result ends its call with the refusal instead of a time-out", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    const deep = JSON.parse("[".repeat(600) + "]".repeat(600));
    // The call itself is refused: the caller gets the refusal under its invocation id.
    const refused = await a.call("state::get", deep);
    assert.deepEqual(refused.error, {
      code: "invalid_frame",
      message: "Frame is nested more than 512 levels deep",
    });
    assert.equal(refused.function_id, "state::get");
    // The callee's result is refused: the caller's call fails at once, naming the function.
    b.serve("deep::echo", () => deep);
    await waitForFunctions(a, ["deep::echo"]);
    const echoed = await a.call("deep::echo", {});
    assert.equal(echoed.error.code, "invalid_frame");
    assert.match(
      echoed.error.message,
      /^The result of "deep::echo" from worker "worker-\w+" was refused: Frame is nested more than 512 levels deep$/,
    );
    // The worker is told too (the frame may have come already).
    const told = b.frames.find((f) => f.type === "error") ??
      await b.next((f) => f.type === "error");
    assert.equal(told.error.code, "invalid_frame");
    // A result for a call the worker was never sent settles nothing.
    b.send({
      type: "invocationresult",
      invocation_id: "not-mine",
      function_id: "x::y",
      result: deep,
    });
    assert.equal((await a.call("engine::health::check", {})).result.status, "ok");
    await a.close();
    await b.close();
  }));

Deno.test("frames from an older peer and frames with unknown fields are accepted", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    // iii-sdk 0.22.1 leaks message_type; older peers omit optional fields.
    b.send({
      type: "registerfunction",
      id: "demo::echo",
      message_type: "registerfunction",
      extra: { x: 1 },
    });
    b.socket.addEventListener("message", (e) => {
      const f = JSON.parse(e.data);
      if (f.type === "invokefunction") {
        b.send({
          type: "invocationresult",
          invocation_id: f.invocation_id,
          function_id: f.function_id,
          result: f.data,
          error: null,
          future_field: true,
        });
      }
    });
    await waitForFunctions(a, ["demo::echo"]);
    const id = crypto.randomUUID();
    const res = a.next((f) => f.invocation_id === id);
    a.send({
      type: "invokefunction",
      invocation_id: id,
      function_id: "demo::echo",
      data: { v: 1 },
      unknown: "x",
    });
    assert.deepEqual((await res).result, { v: 1 });
    await a.close();
    await b.close();
  }));

Deno.test("replicas share calls (fewest in flight first) and one failing over leaves the other serving", () =>
  withEngine(async (url) => {
    const caller = await RawWorker.connect(url);
    const r1 = await RawWorker.connect(url);
    const r2 = await RawWorker.connect(url);
    const served = { r1: 0, r2: 0 };
    r1.serve("img::resize", async () => {
      served.r1++;
      await new Promise((r) => setTimeout(r, 5));
      return "r1";
    });
    r2.serve("img::resize", async () => {
      served.r2++;
      await new Promise((r) => setTimeout(r, 5));
      return "r2";
    });
    await waitForFunctions(caller, ["img::resize"]);
    // The two registrations come over two connections: wait until the engine has both.
    const deadline = Date.now() + 5000;
    let entry;
    do {
      const list = await caller.call("engine::functions::list", { prefix: "img::" });
      entry = list.result.functions[0];
    } while (entry.replicas < 2 && Date.now() < deadline);
    assert.equal(entry.replicas, 2);
    assert.deepEqual([...entry.workers].length, 2);
    const results = await Promise.all(
      Array.from({ length: 40 }, () => caller.call("img::resize", {})),
    );
    assert.ok(results.every((r) => r.result === "r1" || r.result === "r2"));
    assert.ok(served.r1 >= 10 && served.r2 >= 10, `balanced: ${JSON.stringify(served)}`);
    await r1.close();
    const after = await Promise.all(
      Array.from({ length: 5 }, () => caller.call("img::resize", {})),
    );
    assert.ok(after.every((r) => r.result === "r2"), "the surviving replica takes every call");
    await caller.close();
    await r2.close();
  }));

Deno.test("a worker that disconnects mid-call fails its calls with invocation_stopped at once", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    b.send({ type: "registerfunction", id: "slow::op" });
    await waitForFunctions(a, ["slow::op"]);
    const got = b.next((f) => f.type === "invokefunction");
    const started = Date.now();
    const pending = a.call("slow::op", {});
    await got;
    await b.close();
    const r = await pending;
    assert.equal(r.error.code, "invocation_stopped");
    assert.match(
      r.error.message,
      /^Invocation of slow::op stopped: worker "worker-[0-9a-f]{8}" disconnected before answering$/,
    );
    assert.ok(Date.now() - started < 1000);
    const again = await a.call("slow::op", {});
    assert.equal(again.error.code, "function_not_found", "its functions are gone");
    await a.close();
  }));

Deno.test("a call that outlives the engine's time-out fails with invocation_timeout and a late result is dropped", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    b.send({ type: "registerfunction", id: "slow::op" });
    await waitForFunctions(a, ["slow::op"]);
    const inv = b.next((f) => f.type === "invokefunction");
    const r = await a.call("slow::op", {});
    assert.equal(r.error.code, "invocation_timeout");
    assert.match(r.error.message, /slow::op timed out after 200ms/);
    const f = await inv;
    b.send({
      type: "invocationresult",
      invocation_id: f.invocation_id,
      function_id: "slow::op",
      result: 1,
    });
    // Frames of one connection are handled in order: b's pong means its late result was handled.
    b.send({ type: "ping" });
    await b.next((x) => x.type === "pong");
    const stats = await a.call("engine::invocations::stats", {});
    assert.equal(
      stats.result.per_function["slow::op"],
      undefined,
      "the timed-out call is no longer in flight",
    );
    assert.equal(a.frames.filter((x) => x.type === "invocationresult" && x.result === 1).length, 0);
    await a.close();
    await b.close();
  }, { invocationTimeoutMs: 200 }));

Deno.test("a void call is delivered and never answered", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    const got = new Promise((resolve) => b.serve("events::track", (d) => resolve(d)));
    await waitForFunctions(a, ["events::track"]);
    a.frames.length = 0;
    a.send({
      type: "invokefunction",
      function_id: "events::track",
      data: { e: 1 },
      action: { type: "void" },
    });
    assert.deepEqual(await got, { e: 1 });
    // Whatever b answered to the void call is handled once its pong comes back.
    b.send({ type: "ping" });
    await b.next((x) => x.type === "pong");
    a.send({
      type: "invokefunction",
      function_id: "missing::x",
      data: {},
      action: { type: "void" },
    });
    const r = await a.call("engine::health::check", {});
    assert.equal(r.result.status, "ok");
    assert.equal(
      a.frames.filter((f) => f.type === "invocationresult").length,
      1,
      "only the health call answered",
    );
    // No one hears of a void call's failure but the log.
    const failed = new Promise((resolve) =>
      b.serve("events::fail", () => {
        resolve(true);
        throw Object.assign(new Error("disk full"), { code: "NO_SPACE" });
      })
    );
    await waitForFunctions(a, ["events::fail"]);
    a.send({
      type: "invokefunction",
      function_id: "events::fail",
      data: {},
      action: { type: "void" },
    });
    await failed;
    b.send({ type: "ping" });
    await b.next((x) => x.type === "pong");
    const logs = await a.call("engine::logs::list", { level: "warn", text: "Fire-and-forget" });
    assert.deepEqual(
      logs.result.logs.map((l: { message: string }) => l.message.replace(/"worker-\w+"/, "W")),
      [
        "Fire-and-forget call of missing::x from worker W failed: function_not_found: Function missing::x not found",
        "Fire-and-forget call of events::fail from worker W failed: NO_SPACE: disk full",
      ],
    );
    await a.close();
    await b.close();
  }));

Deno.test("an enqueue call without a queue worker fails with enqueue_error saying what to add", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const id = crypto.randomUUID();
    const res = a.next((f) => f.invocation_id === id);
    a.send({
      type: "invokefunction",
      invocation_id: id,
      function_id: "jobs::run",
      data: {},
      action: { type: "enqueue", queue: "jobs" },
    });
    const r = await res;
    assert.equal(r.error.code, "enqueue_error");
    assert.match(r.error.message, /engine worker add engine-queue/);
    await a.close();
  }));

Deno.test("reattach cleans up the previous connection named by a valid token", () =>
  withEngine(async (url) => {
    const caller = await RawWorker.connect(url);
    const first = await RawWorker.connect(url);
    first.send({ type: "registerfunction", id: "a::b" });
    await waitForFunctions(caller, ["a::b"]);
    const token = first.frames[0]!.reattach_token;
    const second = await RawWorker.connect(url);
    second.send({ type: "reattach", previous_worker_id: first.workerId, reattach_token: "wrong" });
    second.send({ type: "ping" });
    await second.next((f) => f.type === "pong");
    const list1 = await caller.call("engine::workers::list", {});
    assert.ok(
      list1.result.workers.some((w: { id: string }) => w.id === first.workerId),
      "a wrong token changes nothing",
    );
    second.send({ type: "reattach", previous_worker_id: first.workerId, reattach_token: token });
    await first.closed;
    const list2 = await caller.call("engine::workers::list", {});
    assert.ok(!list2.result.workers.some((w: { id: string }) => w.id === first.workerId));
    await caller.close();
    await second.close();
  }));

Deno.test("a call or a result over the size limit fails alone; the connection stays open", () =>
  withEngine(async (url) => {
    const caller = await RawWorker.connect(url);
    const worker = await RawWorker.connect(url);
    worker.serve("big::answer", (d) => (d as { n: number }).n > 0 ? "x".repeat(5000) : "small");
    await waitForFunctions(caller, ["big::answer"]);

    // A call too large: its caller gets the refusal under its own invocation id, and an error frame.
    const errorFrame = caller.next((f) => f.type === "error");
    const tooBig = await caller.call("big::answer", "x".repeat(5000));
    assert.equal(tooBig.error.code, "frame_too_large");
    assert.match(tooBig.error.message, /^Frame of 5\d{3} bytes exceeds the 4096-byte limit/);
    assert.equal((await errorFrame).error.code, "frame_too_large");

    // A result too large fails that call only, naming the function and the worker.
    const r = await caller.call("big::answer", { n: 1 });
    assert.equal(r.error.code, "frame_too_large");
    assert.match(
      r.error.message,
      /^The result of "big::answer" from worker "[^"]+" was refused: Frame of 5\d{3} bytes exceeds the 4096-byte limit \(max_frame_bytes\)$/,
    );

    // Both connections still work.
    assert.equal((await caller.call("big::answer", { n: 0 })).result, "small");
    await caller.close();
    await worker.close();
  }, { maxFrameBytes: 4096 }));

Deno.test("with a token configured, a connection without it is refused before it can register", () =>
  withEngine(async (url) => {
    await assert.rejects(RawWorker.connect(url), /Cannot connect/);
    await assert.rejects(
      RawWorker.connect(url, { authorization: "Bearer nope" }),
      /Cannot connect/,
    );
    const ok = await RawWorker.connect(url, { authorization: "Bearer s3cret" });
    const r = await ok.call("engine::health::check", {});
    assert.equal(r.result.status, "ok");
    await ok.close();
  }, { token: "s3cret" }));

Deno.test("engine::workers::register names the worker in engine::workers::list", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    a.send({
      type: "invokefunction",
      function_id: "engine::workers::register",
      data: { runtime: "node", name: "billing", pid: 42 },
      action: { type: "void" },
    });
    const deadline = Date.now() + 2000;
    let me;
    while (Date.now() < deadline) {
      const r = await a.call("engine::workers::list", {});
      me = r.result.workers.find((w: { id: string }) => w.id === a.workerId);
      if (me.name === "billing") break;
    }
    assert.equal(me.name, "billing");
    assert.equal(me.runtime, "node");
    assert.equal(me.pid, 42);
    await a.close();
  }));

Deno.test("the engine answers a WebSocket ping with a pong carrying the same data", () =>
  withEngine(async (url) => {
    const { port } = new URL(url);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    try {
      const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
      await conn.write(new TextEncoder().encode(
        `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ));
      // A masked ping (opcode 0x9) with a 4-byte payload; the mask key is zero, so the bytes stay as is.
      await conn.write(new Uint8Array([0x89, 0x84, 0, 0, 0, 0, 0x70, 0x69, 0x6e, 0x67]));
      let received = new Uint8Array(0);
      const pongAt = () => {
        for (let i = 0; i + 6 <= received.length; i++) {
          if (received[i] === 0x8a && received[i + 1] === 4) return i;
        }
        return -1;
      };
      while (pongAt() < 0) {
        const buf = new Uint8Array(4096);
        const n = await conn.read(buf);
        assert.notEqual(n, null, "the connection stayed open until the pong");
        received = new Uint8Array([...received, ...buf.subarray(0, n!)]);
      }
      const i = pongAt();
      assert.equal(new TextDecoder().decode(received.subarray(i + 2, i + 6)), "ping");
    } finally {
      conn.close();
    }
  }));

Deno.test("the frame size limit counts UTF-8 bytes, not characters", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    // 3,000 characters, over 6,000 bytes.
    const refused = await a.call("a::b", "é".repeat(3000));
    assert.match(refused.error.message, /^Frame of 6\d{3} bytes exceeds the 4096-byte limit/);
  }, { maxFrameBytes: 4096 }));

Deno.test("stop() lets calls in flight finish within the grace period, then fails the rest", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 2000 });
  const caller = await RawWorker.connect(engine.url);
  const worker = await RawWorker.connect(engine.url);
  worker.serve("slow::finish", async () => {
    await new Promise((r) => setTimeout(r, 100)); // the handler's own work
    return "finished";
  });
  await waitForFunctions(caller, ["slow::finish"]);
  const pending = caller.call("slow::finish", {});
  await worker.next((f) => f.type === "invokefunction" && f.function_id === "slow::finish");
  const stopping = engine.stop();
  assert.equal((await pending).result, "finished", "answered before the sockets closed");
  await stopping;
  await caller.closed;
  await worker.closed;
});

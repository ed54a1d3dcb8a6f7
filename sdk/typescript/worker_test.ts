import assert from "node:assert/strict";
import { DEFAULT_ENGINE_URL, registerWorker } from "./mod.ts";
import { type Json, ScriptedEngine } from "./_testing/engine_peer.ts";
import { FAST, withWorker } from "./_testing/with_worker.ts";
import { waitUntil } from "./_testing/raw_server.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("registerWorker() sends the token, the registrations, then engine::workers::register", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, { ...FAST, token: "s3cret" });
  worker.registerFunction("demo::early", () => "registered before the connection opened");
  try {
    const conn = await engine.connection(0);
    const announce = await conn.waitType("invokefunction", "engine::workers::register");
    assert.equal(conn.headers["authorization"], "Bearer s3cret");
    assert.deepEqual(conn.frames.map((f) => f.type), ["registerfunction", "invokefunction"]);
    assert.deepEqual(conn.frames[0], { type: "registerfunction", id: "demo::early" });
    assert.equal(announce.invocation_id, undefined);
    assert.deepEqual(announce.action, { type: "void" });
    const data = announce.data as Json;
    assert.equal(data.runtime, "deno");
    assert.equal(data.name, "test-worker");
    assert.equal(data.sdk, "engine-typescript");
    assert.equal(data.pid, Deno.pid);
    assert.equal(typeof data.version, "string");
    assert.match(String(data.os), /\(.+\)$/);
    await worker.ready();
    assert.equal(worker.workerId, "w-1");
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("registerFunction() and registerTrigger() send frames of the protocol's shape", async () => {
  await withWorker(async ({ worker, conn }) => {
    const fn = worker.registerFunction("orders::create", () => ({}), {
      description: "Creates an order",
      metadata: { tag: "x" },
    });
    const trigger = worker.registerTrigger({
      type: "http",
      function_id: "orders::create",
      config: { api_path: "/orders", http_method: "POST" },
      metadata: { m: 1 },
    });
    const reg = await conn.waitType("registerfunction");
    assert.deepEqual(reg, {
      type: "registerfunction",
      description: "Creates an order",
      metadata: { tag: "x" },
      id: "orders::create",
    });
    const trig = await conn.waitType("registertrigger");
    assert.match(String(trig.id), UUID);
    assert.equal(trig.id, trigger.id);
    assert.deepEqual({ ...trig, id: "<uuid>" }, {
      type: "registertrigger",
      id: "<uuid>",
      trigger_type: "http",
      function_id: "orders::create",
      config: { api_path: "/orders", http_method: "POST" },
      metadata: { m: 1 },
    });
    trigger.unregister();
    fn.unregister();
    assert.deepEqual(await conn.waitType("unregistertrigger"), {
      type: "unregistertrigger",
      id: trigger.id,
      trigger_type: "http",
    });
    assert.deepEqual(await conn.waitType("unregisterfunction"), {
      type: "unregisterfunction",
      id: "orders::create",
    });
  });
});

Deno.test("registerTrigger() and registerFunction() refuse values JSON cannot hold; the replay keeps the rest", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  try {
    worker.registerFunction("a::b", () => null);
    const kept = worker.registerTrigger({ type: "http", function_id: "a::b", config: { p: "/b" } });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const refused: [field: "config" | "metadata", value: unknown, detail: RegExp][] = [
      ["config", { size: 1n }, /BigInt/],
      ["config", cycle, /circular/i],
      ["metadata", { size: 2n }, /BigInt/],
    ];
    for (const [field, value, detail] of refused) {
      assert.throws(
        () =>
          worker.registerTrigger(
            {
              type: "http",
              function_id: "a::b",
              config: {},
              [field]: value,
            } as Parameters<typeof worker.registerTrigger>[0],
          ),
        (e: Error) =>
          e instanceof TypeError &&
          e.message.startsWith(
            `Invalid trigger "http" for "a::b": "${field}" is not JSON-serializable: `,
          ) && detail.test(e.message),
      );
    }
    assert.throws(
      () => worker.registerFunction("a::c", () => null, { metadata: { n: 3n } }),
      /^TypeError: Invalid function "a::c": "metadata" is not JSON-serializable: .*BigInt/,
    );
    const noop = { registerTrigger() {}, unregisterTrigger() {} };
    assert.throws(
      () =>
        worker.registerTriggerType(
          { id: "ticker", description: 10n } as unknown as { id: string; description: string },
          noop,
        ),
      /^TypeError: Invalid "description" of trigger type "ticker": expected a string, got bigint/,
    );
    const first = await engine.connection(0);
    await first.waitType("invokefunction", "engine::workers::register");
    first.close(1012, "restart");
    const second = await engine.connection(1);
    await second.waitType("invokefunction", "engine::workers::register");
    assert.deepEqual(
      second.frames.map((f) => f.type === "invokefunction" ? f.function_id : f.type),
      ["reattach", "registerfunction", "registertrigger", "engine::workers::register"],
    );
    assert.equal(second.frames[2]!.id, kept.id);
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("registerFunction() rejects malformed and duplicate ids with the id in the message", async () => {
  await withWorker(({ worker }) => {
    for (const bad of ["orders", "orders.create", "orders::", "::create", "a::b c", "a::b/c", ""]) {
      assert.throws(() => worker.registerFunction(bad, () => {}), (err: Error) => {
        assert.ok(err instanceof TypeError);
        assert.ok(err.message.includes(JSON.stringify(bad)), err.message);
        return true;
      });
    }
    worker.registerFunction("ok-1::name_2", () => {});
    worker.registerFunction("a::b::c", () => {});
    assert.throws(
      () => worker.registerFunction("ok-1::name_2", () => {}),
      /already registered: "ok-1::name_2"/,
    );
    assert.throws(
      () => worker.registerTrigger({ type: "http", function_id: "nope", config: {} }),
      /"nope"/,
    );
    return Promise.resolve();
  });
});

Deno.test("registerWorker() without a URL reads ENGINE_URL and ENGINE_TOKEN", async () => {
  const engine = new ScriptedEngine();
  Deno.env.set("ENGINE_URL", engine.url);
  Deno.env.set("ENGINE_TOKEN", "from-env");
  const worker = registerWorker(undefined, FAST);
  try {
    await worker.ready();
    const conn = await engine.connection(0);
    assert.equal(conn.headers["authorization"], "Bearer from-env");
    assert.equal(worker.url, engine.url);
  } finally {
    Deno.env.delete("ENGINE_URL");
    Deno.env.delete("ENGINE_TOKEN");
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("registerWorker() counts an empty ENGINE_URL or ENGINE_TOKEN as unset", async () => {
  Deno.env.set("ENGINE_URL", "");
  Deno.env.set("ENGINE_TOKEN", "");
  const worker = registerWorker(undefined, FAST);
  try {
    assert.equal(worker.url, DEFAULT_ENGINE_URL);
  } finally {
    Deno.env.delete("ENGINE_URL");
    Deno.env.delete("ENGINE_TOKEN");
    await worker.shutdown();
  }
});

Deno.test("registerWorker() refuses a URL or token it could never connect with, naming its source", () => {
  const cases: [string, Record<string, string>, string | undefined, object, RegExp][] = [
    [
      "a URL that does not parse",
      { ENGINE_URL: " " },
      undefined,
      {},
      /^Invalid engine URL " " \(from ENGINE_URL\): expected a ws:\/\/ or wss:\/\/ URL$/,
    ],
    [
      "a port out of range",
      {},
      "ws://127.0.0.1:99999",
      {},
      /^Invalid engine URL "ws:\/\/127\.0\.0\.1:99999": expected/,
    ],
    [
      "an ENGINE_TOKEN read from a file with its newline",
      { ENGINE_TOKEN: "s3cret\n" },
      "ws://127.0.0.1:1",
      {},
      /^ENGINE_TOKEN cannot be sent as a bearer token: it holds a line break/,
    ],
    [
      "a token option with a line break",
      {},
      "ws://127.0.0.1:1",
      { token: "a\r\nX-Evil: 1" },
      /^Option "token" cannot be sent/,
    ],
    [
      "a header with a line break",
      {},
      "ws://127.0.0.1:1",
      { headers: { "x-team": "a\nb" } },
      /^Invalid value for header "x-team": line breaks/,
    ],
  ];
  for (const [what, env, url, options, message] of cases) {
    for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
    try {
      assert.throws(() => registerWorker(url, { ...FAST, ...options }), (err: Error) => {
        assert.ok(err instanceof TypeError, what);
        assert.match(err.message, message, what);
        return true;
      });
    } finally {
      for (const name of Object.keys(env)) Deno.env.delete(name);
    }
  }
});

Deno.test("a provided trigger type answers the engine's registertrigger and unregistertrigger", async () => {
  const seen: string[] = [];
  await withWorker(async ({ worker, conn }) => {
    worker.registerTriggerType<{ every: number }>({ id: "ticker", description: "ticks" }, {
      registerTrigger(t) {
        if (!(t.config.every > 0)) throw new Error("every must be positive");
        seen.push(`register ${t.id} ${t.function_id} ${JSON.stringify(t.metadata)}`);
      },
      unregisterTrigger(t) {
        seen.push(`unregister ${t.id} ${t.function_id} ${JSON.stringify(t.config)}`);
      },
    });
    assert.deepEqual(await conn.waitType("registertriggertype"), {
      type: "registertriggertype",
      id: "ticker",
      description: "ticks",
    });
    const result = (id: string) =>
      conn.waitFor((f) => f.type === "triggerregistrationresult" && f.id === id);

    conn.send({
      type: "registertrigger",
      id: "t-A",
      trigger_type: "ticker",
      function_id: "demo::a",
      config: { every: 5 },
      metadata: { k: "v" },
    });
    assert.deepEqual(await result("t-A"), {
      type: "triggerregistrationresult",
      id: "t-A",
      trigger_type: "ticker",
      function_id: "demo::a",
    });

    conn.send({
      type: "registertrigger",
      id: "t-B",
      trigger_type: "ticker",
      function_id: "demo::a",
      config: { every: 0 },
    });
    assert.deepEqual((await result("t-B")).error, {
      code: "trigger_registration_failed",
      message: 'Cannot register trigger "t-B" (ticker) for "demo::a": every must be positive',
    });

    conn.send({
      type: "registertrigger",
      id: "t-C",
      trigger_type: "nope",
      function_id: "demo::a",
      config: {},
    });
    assert.deepEqual((await result("t-C")).error, {
      code: "trigger_type_not_found",
      message: 'Trigger type "nope" not found',
    });

    conn.send({ type: "unregistertrigger", id: "t-A", trigger_type: "ticker" });
    const sync = await conn.invoke("does::not::exist", {}); // a round trip, so the unregister has been handled
    assert.ok(sync.error);
    assert.deepEqual(seen, [
      'register t-A demo::a {"k":"v"}',
      'unregister t-A demo::a {"every":5}',
    ]);
  });
});

/** What a trigger type's handler was called with, and waits for the calls to come. */
function handlerCalls() {
  const seen: string[] = [];
  const wakers: (() => void)[] = [];
  const until = (done: () => boolean, what: string) =>
    waitUntil(() => done() || undefined, (wake) => wakers.push(wake), 3000, what);
  return {
    seen,
    record(call: string) {
      seen.push(call);
      for (const wake of wakers.splice(0)) wake();
    },
    /** Resolves once the handler has been called `count` times. */
    calls: (count: number) => until(() => seen.length >= count, `${count} handler calls`),
    /** Resolves once `call` was recorded. */
    recorded: (call: string) => until(() => seen.includes(call), call),
  };
}

Deno.test("a provided trigger type: one registration per trigger, undone when the engine forgets it", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  const { seen, record, calls } = handlerCalls();
  const ref = worker.registerTriggerType({ id: "ticker", description: "ticks" }, {
    async registerTrigger(t) {
      await new Promise((resolve) => setTimeout(resolve, 20)); // slow: an unregister must wait
      record(`register ${t.id}`);
    },
    unregisterTrigger(t) {
      record(`unregister ${t.id}`);
    },
  });
  const handOver = (conn: Awaited<ReturnType<typeof engine.connection>>, id: string) => {
    conn.send({
      type: "registertrigger",
      id,
      trigger_type: "ticker",
      function_id: "demo::a",
      config: { every: 1 },
    });
    return conn.waitFor((f) => f.type === "triggerregistrationresult" && f.id === id);
  };
  try {
    const first = await engine.connection(0);
    await first.waitType("registertriggertype");
    // An unregister right behind its register waits for it; an unknown id is not handed to the handler.
    const accepted = handOver(first, "t-1");
    first.send({ type: "unregistertrigger", id: "t-1", trigger_type: "ticker" });
    first.send({ type: "unregistertrigger", id: "t-never", trigger_type: "ticker" });
    assert.equal((await accepted).error, undefined);
    assert.equal((await handOver(first, "t-2")).error, undefined);
    assert.equal(
      (await handOver(first, "t-2")).error,
      undefined,
      "the same trigger again: accepted",
    );
    assert.deepEqual(seen, ["register t-1", "unregister t-1", "register t-2"]);

    // The connection drops: the engine forgot t-2, so it is undone, then handed over again once.
    first.close(1012, "restart");
    const second = await engine.connection(1);
    await second.waitType("registertriggertype");
    assert.equal((await handOver(second, "t-2")).error, undefined);
    assert.deepEqual(seen.slice(3), ["unregister t-2", "register t-2"]);

    // Unregistering the type hands its triggers back too.
    ref.unregister();
    await second.waitType("unregistertriggertype");
    await calls(6);
    assert.deepEqual(seen.slice(5), ["unregister t-2"]);
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("a trigger still being registered when the connection drops is undone, and its late answer not sent", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  const { seen, record, recorded } = handlerCalls();
  const { promise: gate, resolve: open } = Promise.withResolvers<void>();
  worker.registerTriggerType({ id: "ticker", description: "ticks" }, {
    async registerTrigger(t) {
      record(`register ${t.id} started`);
      if (seen.length === 1) await gate; // the first registration outlives its connection
      record(`register ${t.id} done`);
    },
    unregisterTrigger(t) {
      record(`unregister ${t.id}`);
    },
  });
  const handOver = (conn: Awaited<ReturnType<typeof engine.connection>>) =>
    conn.send({
      type: "registertrigger",
      id: "t-1",
      trigger_type: "ticker",
      function_id: "demo::a",
      config: {},
    });
  try {
    const first = await engine.connection(0);
    await first.waitType("registertriggertype");
    handOver(first);
    await recorded("register t-1 started");
    first.close(1012, "restart");
    const second = await engine.connection(1);
    await second.waitType("registertriggertype");
    open();
    await recorded("unregister t-1"); // the stale registration is undone once it is accepted
    handOver(second);
    const answer = await second.waitFor((f) => f.type === "triggerregistrationresult");
    assert.equal(answer.error, undefined);
    assert.deepEqual(seen, [
      "register t-1 started",
      "register t-1 done",
      "unregister t-1",
      "register t-1 started",
      "register t-1 done",
    ]);
    const answers = second.frames.filter((f) => f.type === "triggerregistrationresult");
    assert.equal(answers.length, 1, "the first connection's answer did not reach the second");
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("shutdown(): a reconnect during the drain registers no function again", async () => {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, FAST);
  try {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    worker.registerFunction("jobs::slow", async () => {
      started();
      await held;
      return { done: true };
    });
    worker.registerTrigger({ type: "cron", function_id: "jobs::slow", config: { every: 1 } });
    await worker.ready();
    const first = await engine.connection(0);
    await first.waitType("registerfunction", undefined);
    // Its answer is lost with the first connection: the wait for it times out.
    first.invoke("jobs::slow", {}).catch(() => {});
    await running;
    const stopping = worker.shutdown({ drainTimeoutMs: 5000 });
    await first.waitType("unregisterfunction");
    first.close(1012, "engine restarting"); // the connection drops while jobs::slow runs
    const second = await engine.connection(1);
    await second.waitType("registertrigger");
    release();
    await stopping;
    assert.equal(
      second.frames.filter((f) => f.type === "registerfunction").length,
      0,
      `registered again: ${JSON.stringify(second.frames.map((f) => f.type))}`,
    );
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

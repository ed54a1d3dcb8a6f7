/**
 * The published npm iii-sdk@0.22.1, unchanged, against the engine: every
 * method of its public API driven through `tests/fixtures/core/iii_compat_worker.ts`
 * by a raw worker, the engine as a real process (killed and restarted for
 * reconnect), and our TypeScript and Python SDKs as peers in both directions.
 */
import assert from "node:assert/strict";
import { type EngineProcess, ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";
import { startEngine } from "../../engine/engine.ts";

const FIXTURE = "tests/fixtures/core/iii_compat_worker.ts";
const MAX_FRAME = 4 * 1024 * 1024;
const UNICODE = 'é ✓ 𝄞 "quoted" \\ \u0000 \u2028 日本語';

function startCompat(url: string): Promise<WorkerProcess> {
  // --no-lock: the fixture imports the Logger from @iii-dev/helpers, a dependency of iii-sdk.
  return spawnWorker(FIXTURE, { ENGINE_URL: url, OTEL_ENABLED: "true" }, {
    args: ["run", "--allow-all", "--no-lock", `${ROOT}${FIXTURE}`],
  });
}

/** Polls `what` until it returns a value other than undefined (the signal is the value). */
async function until<T>(description: string, what: () => Promise<T | undefined> | T | undefined) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after 10000ms waiting for ${description}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A raw worker with `raw::sink` (answers `{got: data}`) and `raw::never` (never answers). */
async function connectPeer(url: string): Promise<RawWorker> {
  const peer = await RawWorker.connect(url);
  peer.serve("raw::sink", (data) => ({ got: data }));
  peer.serve("raw::never", () => new Promise(() => {}));
  peer.serve("raw::route", (data, f) => ({
    status_code: 200,
    body: { path_params: (data as Frame).path_params, metadata: f.metadata ?? null },
  }));
  return peer;
}

const isSink = (tag: string) => (f: Frame) =>
  f.type === "invokefunction" && f.function_id === "raw::sink" && f.data?.tag === tag;

Deno.test("iii-sdk@0.22.1: every method of its API works against the engine", async (t) => {
  const port = freePort();
  const httpPort = freePort();
  const { file, dir } = await tempConfig(`port: ${port}
max_frame_bytes: ${MAX_FRAME}
console:
  enabled: false
workers:
  - name: engine-http
    config: { port: ${httpPort} }
  - name: engine-state
    config: { adapter: memory }
  - name: engine-queue
    config: { adapter: memory }
`);
  let engine: EngineProcess = await spawnEngine({ config: file, cwd: dir });
  let peer = await connectPeer(engine.url);
  let raw = await RawWorker.connect(engine.url);
  const compat = await startCompat(engine.url);
  const call = async (functionId: string, data: unknown) => {
    const f = await raw.call(functionId, data);
    assert.equal(f.error, undefined, `${functionId}: ${JSON.stringify(f.error)}`);
    return f.result;
  };
  const http = (path: string, init?: RequestInit) =>
    fetch(`http://127.0.0.1:${httpPort}${path}`, init).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
  try {
    await waitForFunctions(raw, ["compat::echo", "compat::shutdown", "raw::sink"]);

    await t.step(
      "trigger() waits for the result; payload and metadata arrive unchanged",
      async () => {
        const seen = peer.next(isSink("sync"));
        const r = await call("compat::call", {
          function_id: "raw::sink",
          payload: { tag: "sync", text: UNICODE, n: [1, -2.5, null, true] },
          metadata: { m: UNICODE },
        });
        assert.deepEqual(r.ok, { got: { tag: "sync", text: UNICODE, n: [1, -2.5, null, true] } });
        assert.deepEqual((await seen).metadata, { m: UNICODE });
        // iii-sdk calling iii-sdk: the handler gets its metadata as its second argument.
        const echo = await call("compat::call", {
          function_id: "compat::echo",
          payload: UNICODE,
          metadata: { k: "v" },
        });
        assert.deepEqual(echo.ok, { data: UNICODE, metadata: { k: "v" } });
      },
    );

    await t.step("TriggerAction.Void() resolves at once and the call is delivered", async () => {
      const seen = peer.next(isSink("void"));
      const r = await call("compat::call", {
        function_id: "raw::sink",
        payload: { tag: "void" },
        action: "void",
      });
      assert.equal(r.ok, "<undefined>");
      assert.deepEqual((await seen).data, { tag: "void" });
      // To a missing function: no error for the caller (as in the reference), a warning in the log.
      const missing = await call("compat::call", {
        function_id: "nobody::home",
        payload: {},
        action: "void",
      });
      assert.equal(missing.ok, "<undefined>");
      await engine.waitForLine(/Fire-and-forget call of nobody::home .*function_not_found/);
    });

    await t.step(
      "TriggerAction.Enqueue() answers with a receipt; the queue delivers the call",
      async () => {
        const seen = peer.next(isSink("queued"));
        const r = await call("compat::call", {
          function_id: "raw::sink",
          payload: { tag: "queued", text: UNICODE },
          action: "enqueue",
          queue: "jobs",
        });
        assert.match(r.ok.messageReceiptId, /^[0-9a-f-]{36}$/);
        assert.deepEqual((await seen).data, { tag: "queued", text: UNICODE });
      },
    );

    await t.step("a handler's throw reaches a raw caller as {code, message}", async () => {
      const cases: [string, Frame][] = [
        ["error", { code: "invocation_failed", message: "boom ✗" }],
        ["string", { code: "invocation_failed", message: "boom ✗" }],
        ["invocation_error", { code: "invocation_failed", message: "bad_input: boom ✗" }],
      ];
      for (const [kind, expected] of cases) {
        const f = await raw.call("compat::throw", { kind, message: "boom ✗" });
        assert.deepEqual({ code: f.error?.code, message: f.error?.message }, expected, kind);
        assert.equal(typeof f.error.stacktrace, kind === "string" ? "undefined" : "string", kind);
      }
    });

    await t.step(
      "a failed trigger() rejects with an InvocationError naming code and function",
      async () => {
        const cases: [string, Frame, Frame][] = [
          ["a thrown Error", {
            function_id: "compat::throw",
            payload: { kind: "error", message: "boom" },
          }, {
            code: "invocation_failed",
            message: "invocation_failed: boom",
            function_id: "compat::throw",
            hasStacktrace: true,
          }],
          ["a built-in's refusal", { function_id: "engine::traces::get", payload: {} }, {
            code: "INVALID_ARGUMENT",
            message:
              'INVALID_ARGUMENT: Invalid input for engine::traces::get: field "trace_id": Invalid input: expected string, received undefined',
            function_id: "engine::traces::get",
          }],
          ["a missing function", { function_id: "missing::fn", payload: {} }, {
            code: "function_not_found",
            message: "function_not_found: Function missing::fn not found",
            function_id: "missing::fn",
          }],
          ["no answer in time", { function_id: "raw::never", payload: {}, timeoutMs: 300 }, {
            code: "TIMEOUT",
            message: "TIMEOUT: invocation timed out after 300ms",
            function_id: "raw::never",
          }],
        ];
        for (const [what, request, expected] of cases) {
          const r = await call("compat::call", request);
          assert.ok(r.error, `${what}: ${JSON.stringify(r)}`);
          assert.equal(r.error.name, "InvocationError", what);
          assert.equal(r.error.isInvocationError, true, what);
          for (const [k, v] of Object.entries(expected)) {
            assert.deepEqual(r.error[k], v, `${what}: ${k}`);
          }
        }
      },
    );

    await t.step(
      "large payloads pass; a frame over max_frame_bytes fails its call at once",
      async () => {
        const text = "é✓".repeat(450_000); // 2.25 MB of UTF-8
        const r = await call("compat::call", { function_id: "compat::echo", payload: text });
        assert.equal(r.ok.data, text);
        const tooBigCall = await call("compat::call", {
          function_id: "compat::echo",
          payloadBytes: MAX_FRAME + 1,
        });
        assert.equal(tooBigCall.error.code, "frame_too_large");
        assert.match(
          tooBigCall.error.message,
          /exceeds the 4194304-byte limit \(max_frame_bytes\)/,
        );
        const tooBigResult = await call("compat::call", {
          function_id: "compat::big",
          payload: { bytes: MAX_FRAME + 1 },
        });
        assert.equal(tooBigResult.error.code, "frame_too_large");
        assert.match(
          tooBigResult.error.message,
          /The result of "compat::big" from worker "iii-compat"/,
        );
      },
    );

    await t.step("concurrent trigger() calls each get their own result", async () => {
      const results = await Promise.all(
        Array.from(
          { length: 100 },
          (_, i) =>
            call("compat::call", { function_id: "compat::echo", payload: { i, text: UNICODE } }),
        ),
      );
      results.forEach((r, i) => assert.deepEqual(r.ok.data, { i, text: UNICODE }));
    });

    await t.step("registerFunction() at run time and FunctionRef.unregister()", async () => {
      assert.deepEqual(await call("compat::add", { function_id: "late::fn" }), { id: "late::fn" });
      await waitForFunctions(raw, ["late::fn"]);
      assert.deepEqual(await call("late::fn", { a: 1 }), { from: "late::fn", data: { a: 1 } });
      await call("compat::remove", { function_id: "late::fn" });
      await until("late::fn to be unregistered", async () => {
        const f = await raw.call("late::fn", {});
        return f.error?.code === "function_not_found" ? true : undefined;
      });
    });

    await t.step(
      "an http trigger serves its route with the trigger's metadata; unregister removes it",
      async () => {
        const { key } = await call("compat::bind", {
          type: "http",
          function_id: "raw::route",
          config: { api_path: "/compat/:id", http_method: "POST" },
          metadata: { route: "compat" },
        });
        const served = await until("the /compat/:id route", async () => {
          const r = await http("/compat/42", { method: "POST", body: "{}" });
          return r.status === 200 ? r : undefined;
        });
        assert.deepEqual(served.body, { path_params: { id: "42" }, metadata: { route: "compat" } });
        await call("compat::unbind", { key });
        await until("the route to be removed", async () => {
          const r = await http("/compat/42", { method: "POST", body: "{}" });
          return r.status === 404 ? r : undefined;
        });
      },
    );

    await t.step("a refused http trigger: the SDK prints the engine's reason", async () => {
      await call("compat::bind", {
        type: "http",
        function_id: "raw::route",
        config: { http_method: "POST" },
      });
      await until(
        "the SDK's refusal line",
        () =>
          /\[iii\] Trigger registration failed for "[^"]+" \(http\): .*api_path is required/.test(
              compat.output.join(""),
            )
            ? true
            : undefined,
      );
    });

    await t.step("a state trigger fires its function on a change", async () => {
      await call("compat::bind", {
        type: "state",
        function_id: "raw::sink",
        config: { scope: "compat" },
      });
      await until("the state trigger", async () => {
        const list = await call("engine::registered-triggers::list", {});
        return list.registered_triggers.some((r: Frame) =>
            r.trigger_type === "state" && r.status === "active"
          )
          ? true
          : undefined;
      });
      const seen = peer.next((f) => f.function_id === "raw::sink" && f.data?.scope === "compat");
      await call("state::set", { scope: "compat", key: "k", value: { tag: UNICODE } });
      const event = (await seen).data;
      assert.equal(event.key, "k");
      assert.deepEqual(event.new_value, { tag: UNICODE });
    });

    await t.step(
      "registerTriggerType(): bindings reach the provider, refusals the registrant",
      async () => {
        await call("compat::provide", { id: "compat-tt" });
        const ok = await call("compat::bind", {
          type: "compat-tt",
          function_id: "raw::sink",
          config: { every: 5 },
          metadata: { k: "v" },
        });
        await call("compat::bind", {
          type: "compat-tt",
          function_id: "raw::sink",
          config: { refuse: "bad config ✗" },
        });
        await until(
          "the SDK's refusal line",
          () =>
            /Trigger registration failed for "[^"]+" \(compat-tt\): bad config ✗/.test(
                compat.output.join(""),
              )
              ? true
              : undefined,
        );
        const { events } = await call("compat::tt_events", {});
        assert.deepEqual(events.map((e: Frame) => [e.op, e.config.config]), [
          ["register", { every: 5 }],
          ["register", { refuse: "bad config ✗" }],
        ]);
        assert.deepEqual(events[0].config.metadata, { k: "v" });
        const list = (await call("engine::registered-triggers::list", {})).registered_triggers
          .filter((r: Frame) => r.trigger_type === "compat-tt")
          .map((r: Frame) => [r.status, r.error]);
        assert.deepEqual(list.sort(), [["active", null], ["failed", "bad config ✗"]]);
        // The provider fires: a normal call, with the trigger's metadata.
        const seen = peer.next(isSink("fired"));
        assert.deepEqual(await call("compat::tt_fire", { payload: { tag: "fired" } }), {
          results: [{ got: { tag: "fired" } }],
        });
        assert.deepEqual((await seen).metadata, { k: "v" });
        // Unregistering a trigger reaches the provider.
        await call("compat::unbind", { key: ok.key });
        await until("the provider's unregister", async () => {
          const { events } = await call("compat::tt_events", {});
          return events.some((e: Frame) => e.op === "unregister") ? events : undefined;
        });
      },
    );

    await t.step("unregisterTriggerType(): the type goes, its triggers wait for it", async () => {
      await call("compat::unprovide", { id: "compat-tt", how: "ref" });
      await until("compat-tt to be unregistered", async () => {
        const { triggers } = await call("engine::triggers::list", {});
        return triggers.some((t: Frame) => t.id === "compat-tt") ? undefined : true;
      });
      const left = (await call("engine::registered-triggers::list", {})).registered_triggers
        .filter((r: Frame) => r.trigger_type === "compat-tt");
      assert.deepEqual(left.map((r: Frame) => r.status), ["pending"]);
    });

    await t.step(
      "Logger (from @iii-dev/helpers) writes to the engine's log over /otel",
      async () => {
        const message = `compat log ${crypto.randomUUID()} ${UNICODE}`;
        await call("compat::log", {
          level: "warn",
          message,
          data: { orderId: 42, password: "hunter2" },
        });
        const [entry] = await until("the log entry", async () => {
          const { logs } = await call("engine::logs::list", { text: message });
          return logs.length > 0 ? logs : undefined;
        });
        assert.equal(entry.level, "warn");
        assert.equal(entry.message, message);
        assert.deepEqual(entry.data, { orderId: 42, password: "[redacted]" });
        assert.match(entry.traceId, /^[0-9a-f]{32}$/);
        // The telemetry socket is not the worker's connection: the entry is placed by its trace.
        assert.equal(entry.worker, "iii-compat");
        assert.equal(entry.function, "compat::log");
        // The handler's span (from the SDK's OTel) joins the call's trace.
        const spans = await until("the SDK's span in the trace", async () => {
          const { spans } = await call("engine::traces::get", { trace_id: entry.traceId });
          return spans?.some((s: Frame) => s.kind === "sdk") ? spans : undefined;
        });
        assert.ok(spans.some((s: Frame) => s.name === "compat::log" && s.kind !== "sdk"));
      },
    );

    await t.step("createChannel() gives the refs of one channel", async () => {
      const channel = await call("compat::channel", {});
      const { reader, writer } = channel.ok;
      assert.equal(reader.direction, "read");
      assert.equal(writer.direction, "write");
      assert.equal(reader.channel_id, writer.channel_id);
      assert.equal(reader.access_key, writer.access_key);
    });

    await t.step("what the engine does not offer fails with an error naming it", async () => {
      await call("compat::add_http", { function_id: "external::fn", url: "http://127.0.0.1:9/" });
      await engine.waitForLine(
        /Cannot register function "external::fn": HTTP-invoked functions are not supported/,
      );
    });

    await t.step(
      "after the engine restarts, functions, routes and trigger types come back",
      async () => {
        await call("compat::provide", { id: "compat-tt" });
        await call("compat::bind", {
          type: "http",
          function_id: "raw::route",
          config: { api_path: "/again", http_method: "GET" },
        });
        const before = (await call("compat::tt_events", {})).events.length;
        await Promise.all([raw.close(), peer.close()]);
        assert.equal(await engine.stop("SIGKILL"), 137);
        engine = await spawnEngine({ config: file, cwd: dir });
        peer = await connectPeer(engine.url);
        raw = await RawWorker.connect(engine.url);
        await waitForFunctions(raw, ["compat::echo", "compat::shutdown", "raw::sink"], 20_000);
        const r = await call("compat::call", { function_id: "raw::sink", payload: { back: true } });
        assert.deepEqual(r.ok, { got: { back: true } });
        const served = await until("the /again route", async () => {
          const r = await http("/again");
          return r.status === 200 ? r : undefined;
        });
        assert.deepEqual(served.body.metadata, null);
        // The replayed trigger (pending on compat-tt) is delivered to the provider again.
        await until("the replayed trigger at the provider", async () => {
          const { events } = await call("compat::tt_events", {});
          return events.length > before ? true : undefined;
        });
        const { triggers } = await call("engine::triggers::list", {});
        assert.ok(triggers.some((t: Frame) => t.id === "compat-tt"));
      },
    );

    await t.step("shutdown() rejects the calls in flight and removes the worker", async () => {
      await call("compat::shutdown", {});
      await until("the shutdown lines", () => {
        const out = compat.output.join("");
        return /shut down/.test(out) && /pending call: rejected/.test(out) ? out : undefined;
      });
      assert.match(
        compat.output.join(""),
        /pending call: rejected \{"name":"Error","isInvocationError":false,"code":null,"message":"iii is shutting down"/,
      );
      await until("compat's functions to be gone", async () => {
        const { functions } = await call("engine::functions::list", { prefix: "compat::" });
        return functions.length === 0 ? true : undefined;
      });
    });
  } finally {
    await compat.stop("SIGKILL");
    await Promise.all([raw.close(), peer.close()]);
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

const DRIVERS = [
  {
    sdk: "TypeScript",
    cmd: Deno.execPath(),
    args: ["run", "--allow-all", `${ROOT}tests/conformance/drivers/driver.ts`],
    env: {},
  },
  {
    sdk: "Python",
    cmd: "python3",
    args: ["-u", `${ROOT}tests/conformance/drivers/driver.py`],
    env: { PYTHONPATH: `${ROOT}sdk/python`, PYTHONDONTWRITEBYTECODE: "1" },
  },
];

for (const driver of DRIVERS) {
  Deno.test(`iii-sdk@0.22.1 and our ${driver.sdk} SDK call each other both ways`, async (t) => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
    const raw = await RawWorker.connect(engine.url);
    const compat = await startCompat(engine.url);
    const ours = await spawnWorker("", { ENGINE_URL: engine.url, ...driver.env }, {
      cmd: driver.cmd,
      args: driver.args,
      ready: /driver started/,
    });
    const call = async (functionId: string, data: unknown) => {
      const f = await raw.call(functionId, data);
      assert.equal(f.error, undefined, `${functionId}: ${JSON.stringify(f.error)}`);
      return f.result;
    };
    try {
      await waitForFunctions(raw, ["compat::call", "conformance::call"]);
      await t.step(`iii-sdk → ${driver.sdk}: results, errors and time-outs`, async () => {
        const payload = { text: UNICODE, list: [1, -2.5, null, true, { deep: [] }] };
        const echo = await call("compat::call", { function_id: "conformance::echo", payload });
        assert.deepEqual(echo.ok, payload);
        const big = "é✓".repeat(200_000);
        assert.equal(
          (await call("compat::call", { function_id: "conformance::echo", payload: big })).ok,
          big,
        );
        const coded = await call("compat::call", {
          function_id: "conformance::fail",
          payload: { code: "bad_input", message: `no ${UNICODE}` },
        });
        assert.deepEqual(
          [coded.error.code, coded.error.message, coded.error.function_id],
          ["bad_input", `bad_input: no ${UNICODE}`, "conformance::fail"],
        );
        const plain = await call("compat::call", {
          function_id: "conformance::fail",
          payload: { message: "it broke" },
        });
        assert.equal(plain.error.code, "invocation_failed");
        assert.match(plain.error.message, /^invocation_failed: .*it broke/);
        const late = await call("compat::call", {
          function_id: "conformance::call",
          payload: { function_id: "compat::slow", payload: { ms: 2000 } },
          timeoutMs: 200,
        });
        assert.equal(late.error.code, "TIMEOUT");
      });
      await t.step(`${driver.sdk} → iii-sdk: results, errors and time-outs`, async () => {
        const echo = await call("conformance::call", {
          function_id: "compat::echo",
          payload: { text: UNICODE },
        });
        assert.deepEqual(echo, { ok: { data: { text: UNICODE }, metadata: null } });
        const failed = await call("conformance::call", {
          function_id: "compat::throw",
          payload: { kind: "error", message: `boom ${UNICODE}` },
        });
        assert.deepEqual(failed, {
          error: { code: "invocation_failed", message: `boom ${UNICODE}` },
        });
        const late = await call("conformance::call", {
          function_id: "compat::slow",
          payload: { ms: 2000 },
          timeout_ms: 200,
        });
        assert.equal(late.error?.code, "TIMEOUT", JSON.stringify(late));
      });
      await t.step("concurrent calls in both directions", async () => {
        const results = await Promise.all(
          Array.from(
            { length: 40 },
            (_, i) =>
              i % 2
                ? call("compat::call", { function_id: "conformance::echo", payload: { i } })
                  .then((r) => r.ok)
                : call("conformance::call", { function_id: "compat::echo", payload: { i } })
                  .then((r) => r.ok.data),
          ),
        );
        results.forEach((r, i) => assert.deepEqual(r, { i }));
      });
    } finally {
      await ours.stop();
      await compat.stop("SIGKILL");
      await raw.close();
      await engine.stop();
    }
  });
}

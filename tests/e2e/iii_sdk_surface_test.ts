/**
 * The parts of the npm iii-sdk@0.22.1 API that `iii_sdk_compat_test.ts` does
 * not drive, against the engine as a real process and iii-sdk workers as
 * real processes (`_iii_surface_worker.ts`): what `registerWorker` tells the
 * engine (`EngineFunctions.LIST_WORKERS`/`INFO_WORKERS`), `registerFunction`
 * options, `TriggerTypeRef.registerFunction`/`registerTrigger`, a second
 * provider of a trigger type, the `http()` wrapper of `@iii-dev/helpers/http`,
 * a `timeoutMs` longer than the engine's deadline, and calls made while the
 * engine is down.
 */
import assert from "node:assert/strict";
import { type EngineProcess, ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";

const FIXTURE = "tests/e2e/_iii_surface_worker.ts";
const DEADLINE_MS = 1500;

function startSurface(url: string, name: string): Promise<WorkerProcess> {
  return spawnWorker(FIXTURE, { ENGINE_URL: url, WORKER_NAME: name, III_ISOLATION: "sandbox" }, {
    args: ["run", "--allow-all", "--no-lock", `${ROOT}${FIXTURE}`],
  });
}

/** Polls `what` until it returns a value other than undefined (the signal is the value). */
async function until<T>(description: string, what: () => Promise<T | undefined>): Promise<T> {
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

/** Waits for `pattern` in what `worker` printed. */
function printed(worker: WorkerProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return until(`${pattern} in the worker's output`, () => {
    return Promise.resolve(pattern.exec(worker.output.join("")) ?? undefined);
  });
}

Deno.test("iii-sdk@0.22.1: the rest of its API surface against the engine", async (t) => {
  const port = freePort();
  const httpPort = freePort();
  const { file, dir } = await tempConfig(`port: ${port}
invocation_timeout_ms: ${DEADLINE_MS}
console:
  enabled: false
workers:
  - name: engine-http
    config: { port: ${httpPort} }
`);
  let engine: EngineProcess = await spawnEngine({ config: file, cwd: dir });
  let raw = await RawWorker.connect(engine.url);
  const a = await startSurface(engine.url, "surf-a");
  let b: WorkerProcess | undefined;
  const call = async (functionId: string, data: unknown) => {
    const f = await raw.call(functionId, data);
    assert.equal(f.error, undefined, `${functionId}: ${JSON.stringify(f.error)}`);
    return f.result;
  };
  /** A call made by surf-a through iii-sdk's trigger(). */
  const viaA = async (function_id: string, payload: unknown, timeoutMs?: number) =>
    await call("surf_a::call", { function_id, payload, ...(timeoutMs ? { timeoutMs } : {}) });
  try {
    await waitForFunctions(raw, ["surf_a::call", "surf_a::echo", "surf_a::http"]);

    await t.step("LIST_WORKERS and INFO_WORKERS show what registerWorker said", async () => {
      const { ok } = await viaA("engine::workers::info", { name: "surf-a" });
      const [w] = ok.workers;
      assert.deepEqual(
        [w.name, w.description, w.runtime, w.version, w.pid, w.isolation, w.telemetry],
        ["surf-a", "Surface worker surf-a", "node", "0.22.1", a.pid, "sandbox", {
          language: "xx-XX",
          project_name: "surface-project",
          framework: "surface-framework",
        }],
      );
      assert.match(w.os, /^linux /);
      assert.equal(typeof w.connected_at_ms, "number");
      assert.equal(w.ip_address, "127.0.0.1");
      // The analytics key iii-sdk sends is not shown to every worker.
      assert.doesNotMatch(
        JSON.stringify(await viaA("engine::workers::list", {})),
        /not-for-listing/,
      );
    });

    await t.step("registerFunction options reach the function lists", async () => {
      const { ok } = await viaA("engine::functions::info", { function_id: "surf_a::echo" });
      const [f] = ok.functions;
      assert.deepEqual(
        [f.description, f.request_format, f.response_format, f.metadata, f.worker_name],
        [
          "Echoes its payload",
          { type: "object", properties: { text: { type: "string" } } },
          { type: "object", properties: { echoed: { type: "object" } } },
          { team: "surface" },
          "surf-a",
        ],
      );
      // metadata.internal hides a function from the list, as in the reference; it is still callable.
      const ids = async (payload: Frame) =>
        (await viaA("engine::functions::list", payload)).ok.functions.map((f: Frame) =>
          f.function_id
        );
      assert.ok(!(await ids({ prefix: "surf_a::" })).includes("surf_a::hidden"));
      assert.ok(
        (await ids({ prefix: "surf_a::", include_internal: true })).includes("surf_a::hidden"),
      );
      assert.deepEqual(await viaA("surf_a::hidden", {}), { ok: "hidden but callable" });
    });

    await t.step(
      "TriggerTypeRef.registerFunction and registerTrigger bind through the engine",
      async () => {
        await call("surf_a::provide", { id: "surf-tt" });
        await call("surf_a::bind_ref", {
          function_id: "surf_a::echo",
          config: { every: 2 },
          metadata: { k: "v" },
        });
        const events = await until("both bindings at the provider", async () => {
          const { events } = await call("surf_a::events", {});
          return events.length === 2 ? events : undefined;
        });
        assert.deepEqual(
          events.map((e: Frame) => [e.op, e.function_id, e.config, e.metadata]),
          [
            ["register", "surf_a::viaref", { every: 1 }, { from: "ref" }],
            ["register", "surf_a::echo", { every: 2 }, { k: "v" }],
          ],
        );
        const types = (await viaA("engine::triggers::info", { id: "surf-tt" })).ok.triggers;
        assert.deepEqual(types, [{
          id: "surf-tt",
          description: "provided by surf-a",
          worker_name: "surf-a",
        }]);
        const bound = (await viaA("engine::registered-triggers::list", {})).ok.registered_triggers
          .filter((r: Frame) => r.trigger_type === "surf-tt");
        assert.deepEqual(
          bound.map((r: Frame) => [r.function_id, r.status, r.worker_name]).sort(),
          [["surf_a::echo", "active", "surf-a"], ["surf_a::viaref", "active", "surf-a"]],
        );
        const one = await viaA("engine::registered-triggers::info", { id: events[1].id });
        assert.deepEqual(one.ok.registered_triggers.map((r: Frame) => r.config), [{ every: 2 }]);
      },
    );

    await t.step("a second provider of the type takes its triggers over", async () => {
      b = await startSurface(engine.url, "surf-b");
      await waitForFunctions(raw, ["surf_b::provide"]);
      await call("surf_b::provide", { id: "surf-tt" });
      // Its own binding (viaref) and surf-a's two move to surf-b; surf-a lets go of its two.
      const taken = await until("the bindings at the new provider", async () => {
        const { events } = await call("surf_b::events", {});
        return events.length === 3 ? events : undefined;
      });
      assert.deepEqual(
        taken.map((e: Frame) => e.function_id).sort(),
        ["surf_a::echo", "surf_a::viaref", "surf_b::viaref"],
      );
      // The engine names the trigger by id; iii-sdk passes function_id "" (as the reference's does).
      const released = await until("the old provider's unregisters", async () => {
        const { events } = await call("surf_a::events", {});
        const gone = events.filter((e: Frame) => e.op === "unregister");
        return gone.length === 2 ? { events, gone } : undefined;
      });
      const ids = (events: Frame[]) => events.map((e) => e.id).sort();
      assert.deepEqual(
        ids(released.gone),
        ids(released.events.filter((e: Frame) => e.op === "register")),
      );
      const { triggers } = await call("engine::triggers::info", { id: "surf-tt" });
      assert.equal(triggers[0].worker_name, "surf-b");
    });

    await t.step(
      "a handler written with http() of @iii-dev/helpers/http streams its reply",
      async () => {
        const url = `http://127.0.0.1:${httpPort}/surf-a/hello/42`;
        const r = await until("the route", async () => {
          const r = await fetch(url);
          if (r.status === 404) return void await r.body?.cancel();
          return r;
        });
        assert.equal(r.status, 203);
        assert.equal(r.headers.get("x-surface"), "surf-a");
        assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
        assert.equal(await r.text(), "hello 42 from surf-a");
      },
    );

    await t.step(
      "a timeoutMs longer than the engine's deadline: the error names the setting",
      async () => {
        // surf-a makes the call and prints its outcome: the raw caller's own call would end at the
        // same deadline.
        await call("surf_a::call", {
          function_id: "surf_a::slow",
          payload: { ms: DEADLINE_MS * 3 },
          timeoutMs: DEADLINE_MS * 10,
          background: true,
        });
        const [, line] = await printed(a, /outcome (.*)\n/);
        assert.deepEqual(JSON.parse(line!), {
          error: {
            code: "invocation_timeout",
            message:
              `invocation_timeout: Invocation of surf_a::slow timed out after ${DEADLINE_MS}ms (the engine's invocation_timeout_ms)`,
          },
        });
      },
    );

    await t.step("calls made while the engine is down are sent once it is back", async () => {
      await raw.close();
      assert.equal(await engine.stop("SIGKILL"), 137);
      // The SDK saw the connection end (it schedules a reconnect): calls now queue.
      await printed(a, /Reconnecting in \d+ms/);
      Deno.kill(a.pid, "SIGUSR1");
      engine = await spawnEngine({ config: file, cwd: dir });
      raw = await RawWorker.connect(engine.url);
      const [, line] = await printed(a, /while-down (.*)\n/);
      assert.deepEqual(JSON.parse(line!), { ok: { echoed: { queued: true } } });
      await printed(a, /noted \{"void":true\}/);
    });
  } finally {
    await a.stop("SIGKILL");
    await b?.stop("SIGKILL");
    await raw.close();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

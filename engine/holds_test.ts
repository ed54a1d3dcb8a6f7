import assert from "node:assert/strict";
import type { BuiltinWorker, EngineApi } from "./api.ts";
import { type RunningEngine, startEngine } from "./engine.ts";

/** A built-in worker with one function, `echo::back`, answering `{echo: data}`. */
const echo: BuiltinWorker = {
  name: "echo",
  description: "echoes",
  parseConfig: (raw) => raw,
  defaultConfig: {},
  start: (api) => {
    api.registerFunction("echo::back", (data) => ({ echo: data }));
    return Promise.resolve({ stop: () => Promise.resolve() });
  },
};

async function withEngine(body: (running: RunningEngine, api: EngineApi) => Promise<void>) {
  const running = await startEngine({ port: 0 });
  try {
    await running.startBuiltin(echo, {});
    await body(running, running.builtinApi("engine"));
  } finally {
    await running.stop();
  }
}

/** Settles with the call's result or its error code, and says whether it settled yet. */
function track(call: Promise<unknown>) {
  const state: { done: boolean; value?: unknown; code?: string } = { done: false };
  const settled = call.then(
    (value) => Object.assign(state, { done: true, value }),
    (e) => Object.assign(state, { done: true, code: (e as { code: string }).code }),
  );
  return { state, settled };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

Deno.test("holdCallsOf() makes calls wait while a built-in worker restarts, then routes them", async () => {
  await withEngine(async (running, api) => {
    const release = running.holdCallsOf("echo");
    await running.stopBuiltin("echo");
    const call = track(api.call("echo::back", 1));
    await tick();
    assert.equal(call.state.done, false, "the call waits instead of failing as not found");
    await running.startBuiltin(echo, {});
    release();
    await call.settled;
    assert.deepEqual(call.state, { done: true, value: { echo: 1 } });
    // Released: a call to a function that is gone fails at once again.
    await running.stopBuiltin("echo");
    await assert.rejects(api.call("echo::back", 2), { code: "function_not_found" });
  });
});

Deno.test("a held call fails as not found when its worker did not come back", async () => {
  await withEngine(async (running, api) => {
    const release = running.holdCallsOf("echo");
    await running.stopBuiltin("echo");
    const call = api.call("echo::back", 1);
    release();
    await assert.rejects(call, {
      code: "function_not_found",
      message: "Function echo::back not found",
    });
    // Functions of other workers and unknown ones were never held.
    await assert.rejects(api.call("nobody::home", 1), { code: "function_not_found" });
  });
});

Deno.test("a held call keeps its time-out, and can be stopped", async () => {
  await withEngine(async (running, api) => {
    const release = running.holdCallsOf("echo");
    await running.stopBuiltin("echo");
    await assert.rejects(api.call("echo::back", 1, { timeoutMs: 50 }), {
      code: "invocation_timeout",
      message: "Invocation of echo::back timed out after 50ms",
    });
    const controller = new AbortController();
    const stopped = api.call("echo::back", 1, { signal: controller.signal });
    await tick();
    controller.abort(new Error("the client left"));
    await assert.rejects(stopped, { code: "invocation_stopped" });
    // A hold covers only the worker's functions at the time it was taken, and a second release is harmless.
    release();
    release();
    assert.deepEqual(running.engine.heldCallIds(), []);
  });
});

Deno.test("the engine's stop ends the calls it holds", async () => {
  const running = await startEngine({ port: 0 });
  await running.startBuiltin(echo, {});
  running.holdCallsOf("echo");
  await running.stopBuiltin("echo");
  const call = assert.rejects(running.builtinApi("engine").call("echo::back", 1), {
    code: "invocation_stopped",
    message: "Invocation of echo::back stopped: the engine is shutting down",
  });
  await running.stop();
  await call;
});

Deno.test("EngineApi.whenIdle() resolves once none of the worker's handlers is running", async () => {
  const gate = Promise.withResolvers<void>();
  let api: EngineApi | undefined;
  const slow: BuiltinWorker = {
    ...echo,
    name: "slow",
    start: (a) => {
      api = a;
      a.registerFunction("slow::wait", async () => {
        await gate.promise;
        return "done";
      });
      return Promise.resolve({ stop: () => Promise.resolve() });
    },
  };
  await withEngine(async (running, caller) => {
    await running.startBuiltin(slow, {});
    await api!.whenIdle();
    const call = track(caller.call("slow::wait", null));
    await tick();
    const idle = track(api!.whenIdle());
    await tick();
    assert.equal(idle.state.done, false, "a handler still runs");
    gate.resolve();
    await Promise.all([idle.settled, call.settled]);
    assert.deepEqual(call.state, { done: true, value: "done" });
  });
});

import assert from "node:assert/strict";
import { startEngine } from "./engine.ts";
import type { BuiltinWorker, CallError, EngineApi } from "./api.ts";

/**
 * A built-in worker whose `waiter::wait` waits until its call's signal
 * aborts, as a handler waiting on something slow would, and records why.
 */
function waiter() {
  const state = {
    waiting: 0,
    reasons: [] as string[],
    started: Promise.withResolvers<void>(),
  };
  const worker: BuiltinWorker = {
    name: "waiter",
    description: "waits for its signal",
    parseConfig: (raw) => raw,
    defaultConfig: {},
    start(api) {
      api.registerFunction("waiter::wait", (_payload, ctx) =>
        new Promise((resolve) => {
          state.waiting++;
          state.started.resolve();
          ctx.signal.addEventListener("abort", () => {
            state.waiting--;
            state.reasons.push((ctx.signal.reason as Error).message);
            resolve(null);
          }, { once: true });
        }));
      return Promise.resolve({ stop: () => Promise.resolve() });
    },
  };
  return { worker, state };
}

/** `api.whenIdle()`, failing the test after `ms` instead of hanging it. */
async function idleWithin(api: EngineApi, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      api.whenIdle(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`handlers still running after ${ms}ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a built-in function's signal aborts when its call times out: 2,000 timed-out calls leave no handler running", async () => {
  const running = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const { worker, state } = waiter();
  try {
    await running.startBuiltin(worker, {});
    const caller = running.builtinApi("engine");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 2000 }, () => caller.call("waiter::wait", {}, { timeoutMs: 5 })),
    );
    assert.deepEqual(
      [...new Set(outcomes.map((o) => o.status === "rejected" && (o.reason as CallError).code))],
      ["invocation_timeout"],
    );
    await idleWithin(running.builtinApi("waiter"), 10_000);
    assert.equal(state.waiting, 0);
    assert.equal(state.reasons.length, 2000);
    assert.match(state.reasons[0]!, /^Invocation of waiter::wait timed out/);
    assert.equal(running.engine.invocations.size, 0);
  } finally {
    await running.stop();
  }
});

Deno.test("a built-in function's signal aborts when its call is stopped (its caller's signal)", async () => {
  const running = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const { worker, state } = waiter();
  try {
    await running.startBuiltin(worker, {});
    const stop = new AbortController();
    const call = running.builtinApi("engine").call("waiter::wait", {}, { signal: stop.signal });
    await state.started.promise;
    stop.abort(new Error("the caller gave up"));
    await assert.rejects(call, { code: "invocation_stopped" });
    await idleWithin(running.builtinApi("waiter"), 10_000);
    assert.deepEqual(state.reasons, [
      "Invocation of waiter::wait stopped: the caller gave up",
    ]);
  } finally {
    await running.stop();
  }
});

Deno.test("a built-in function's signal stays unaborted when it answers", async () => {
  const running = await startEngine({ port: 0, shutdownGraceMs: 0 });
  let signal: AbortSignal | undefined;
  const worker: BuiltinWorker = {
    name: "answerer",
    description: "answers at once",
    parseConfig: (raw) => raw,
    defaultConfig: {},
    start(api) {
      api.registerFunction("answerer::now", (_payload, ctx) => {
        signal = ctx.signal;
        return 1;
      });
      return Promise.resolve({ stop: () => Promise.resolve() });
    },
  };
  try {
    await running.startBuiltin(worker, {});
    assert.equal(await running.builtinApi("engine").call("answerer::now", {}), 1);
    assert.equal(signal?.aborted, false);
  } finally {
    await running.stop();
  }
});

/**
 * The SDK conformance cases, described once and run against every SDK's
 * driver (`drivers/driver.ts`, `drivers/driver.py`) by `conformance_test.ts`.
 *
 * The driver contract: a worker that registers
 *
 * | Function            | Payload                                  | Answer                                   |
 * | ------------------- | ---------------------------------------- | ---------------------------------------- |
 * | `conformance::echo` | anything                                 | the payload                              |
 * | `conformance::call` | `{function_id, payload, timeout_ms?}`    | `{ok: result}` or `{error: {code, message}}` from the SDK's `trigger` |
 * | `conformance::fail` | `{code?, message}`                       | fails: the SDK's error type with `code`, or a plain exception |
 * | `conformance::log`  | `{message, data?}`                       | `null`, after `Logger.info(message, data)` |
 *
 * with reconnect delays of at most 500 ms, and prints "driver started".
 * The harness adds a peer worker (raw frames) with `peer::double`
 * (`{n}` → `{n: 2n}`), `peer::fail` (error `{code: "nope", message: "refused"}`)
 * and `peer::never` (never answers).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Frame } from "../support/raw_worker.ts";

export const DRIVER_FUNCTIONS = [
  "conformance::echo",
  "conformance::call",
  "conformance::fail",
  "conformance::log",
];

export interface ConformanceContext {
  /** Calls a function from a raw worker and resolves with the `invocationresult` frame. */
  call(functionId: string, data: unknown): Promise<Frame>;
  /** Resolves once every id is registered with the engine. */
  waitForFunctions(ids: string[], timeoutMs?: number): Promise<void>;
  /** Stops the engine and starts it again on the same port (the peer comes back too). */
  restartEngine(): Promise<void>;
}

export interface ConformanceCase {
  name: string;
  run(ctx: ConformanceContext): Promise<void>;
}

/** Calls `conformance::call` and returns its result (`{ok}` or `{error}`). */
async function viaSdk(ctx: ConformanceContext, request: Frame): Promise<Frame> {
  const frame = await ctx.call("conformance::call", request);
  assert.equal(frame.error, undefined, JSON.stringify(frame.error));
  return frame.result;
}

const PAYLOADS: [string, unknown][] = [
  ["an object", { a: 1, b: "two" }],
  ["nested values of every JSON type", { list: [1, -2.5, "x", true, false, null, { deep: [[]] }] }],
  ["an array", [3, 2, 1]],
  ["a string with non-ASCII text", 'é ✓ 𝄞 \u0000 "quoted" \\'],
  ["a number", 42],
  ["null", null],
  ["an empty object", {}],
  ["a 256 KiB string", "z".repeat(256 * 1024)],
];

export const CASES: ConformanceCase[] = [
  {
    name: "register: the driver's functions are registered with the engine",
    async run(ctx) {
      await ctx.waitForFunctions(DRIVER_FUNCTIONS);
      const list = await ctx.call("engine::functions::list", {});
      const ids = list.result.functions.map((f: Frame) => f.function_id);
      for (const id of DRIVER_FUNCTIONS) assert.ok(ids.includes(id), `${id} in ${ids}`);
    },
  },
  {
    name: "call: a handler's result reaches the caller unchanged",
    async run(ctx) {
      for (const [what, payload] of PAYLOADS) {
        const frame = await ctx.call("conformance::echo", payload);
        assert.equal(frame.error, undefined, `${what}: ${JSON.stringify(frame.error)}`);
        // A missing `result` is how a handler's "nothing" travels (the Python SDK sends None so).
        assert.deepEqual(frame.result ?? null, payload, what);
      }
    },
  },
  {
    name: "call: the SDK's trigger calls another worker's function",
    async run(ctx) {
      const answer = await viaSdk(ctx, { function_id: "peer::double", payload: { n: 21 } });
      assert.deepEqual(answer, { ok: { n: 42 } });
    },
  },
  {
    name: "errors: a handler's error with a code reaches the caller as {code, message}",
    async run(ctx) {
      const message = 'Value "x" is invalid: ✗';
      const frame = await ctx.call("conformance::fail", { code: "bad_input", message });
      assert.equal(frame.result, undefined);
      assert.equal(frame.error.code, "bad_input");
      assert.equal(frame.error.message, message);
    },
  },
  {
    name: "errors: a plain exception becomes invocation_failed with its message",
    async run(ctx) {
      const frame = await ctx.call("conformance::fail", { message: "it broke" });
      assert.equal(frame.error.code, "invocation_failed");
      assert.match(frame.error.message, /it broke/);
    },
  },
  {
    name: "errors: trigger fails with the callee's code and message",
    async run(ctx) {
      const answer = await viaSdk(ctx, { function_id: "peer::fail", payload: {} });
      assert.deepEqual(answer, { error: { code: "nope", message: "refused" } });
    },
  },
  {
    name: "errors: trigger fails with TIMEOUT when no answer comes in time",
    async run(ctx) {
      const answer = await viaSdk(ctx, {
        function_id: "peer::never",
        payload: {},
        timeout_ms: 300,
      });
      assert.equal(answer.error?.code, "TIMEOUT", JSON.stringify(answer));
    },
  },
  {
    name: "not-found: trigger of an unknown function fails with function_not_found",
    async run(ctx) {
      const answer = await viaSdk(ctx, { function_id: "missing::nothing", payload: {} });
      assert.deepEqual(answer, {
        error: { code: "function_not_found", message: "Function missing::nothing not found" },
      });
    },
  },
  {
    name: "logger: Logger.info reaches the engine's log with the worker, function, trace and data",
    async run(ctx) {
      const message = `conformance ${crypto.randomUUID()}`;
      const frame = await ctx.call("conformance::log", { message, data: { n: 1, s: "é" } });
      assert.equal(frame.result ?? null, null);
      // The log call is fire-and-forget: wait until the entry is there.
      const deadline = Date.now() + 10_000;
      let entries: Frame[] = [];
      while (entries.length === 0 && Date.now() < deadline) {
        entries = (await ctx.call("engine::logs::list", { text: message })).result.logs;
        if (entries.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(entries.length, 1, `no log entry "${message}"`);
      const [entry] = entries;
      assert.equal(entry!.level, "info");
      assert.equal(entry!.function, "conformance::log");
      assert.deepEqual(entry!.data, { n: 1, s: "é" });
      assert.match(entry!.traceId ?? "", /^[0-9a-f]{32}$/, "the trace the handler ran in");
      assert.ok(
        typeof entry!.worker === "string" && entry!.worker !== "",
        "the worker that wrote it",
      );
    },
  },
  {
    name: "reconnect: after an engine restart the driver registers again and calls work",
    async run(ctx) {
      await ctx.restartEngine();
      await ctx.waitForFunctions([...DRIVER_FUNCTIONS, "peer::double"], 20_000);
      const echo = await ctx.call("conformance::echo", { again: true });
      assert.deepEqual(echo.result, { again: true });
      const answer = await viaSdk(ctx, { function_id: "peer::double", payload: { n: 5 } });
      assert.deepEqual(answer, { ok: { n: 10 } });
    },
  },
];

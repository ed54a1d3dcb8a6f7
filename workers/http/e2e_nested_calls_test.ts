/**
 * engine-http end to end: a handler (a real worker process) whose own call to
 * another function fails answers 500 with that failure, not as if the
 * handler itself were missing, stopped or late; so does a handler whose own
 * error merely reads like the engine's failure of the call to it. Only the
 * engine's own failures of the call (its worker killed mid-call, …) get
 * their own statuses.
 */
import assert from "node:assert/strict";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import { stateWorker } from "../state/mod.ts";
import { fetchJson, Fixture } from "./_e2e.ts";
import { until } from "./_testing.ts";
import { httpWorker } from "./mod.ts";

type ErrorReply = { error: { code: string; message: string; error_id?: string } };

async function withNestedCalls(
  test: (base: string, engine: RunningEngine, worker: Fixture) => Promise<void>,
): Promise<void> {
  const engine = await startEngine({
    port: 0,
    shutdownGraceMs: 100,
    builtins: [
      { worker: httpWorker, config: httpWorker.parseConfig({ port: 0 }) },
      { worker: stateWorker, config: stateWorker.parseConfig({ adapter: "memory" }) },
    ],
  });
  const { port } = engine.describeBuiltin("engine-http") as { port: number };
  const worker = await Fixture.start("nested_calls_worker", engine);
  try {
    await test(`http://127.0.0.1:${port}`, engine, worker);
  } finally {
    await worker.kill();
    await engine.stop();
  }
}

Deno.test("a handler whose call to another function fails gets 500 with that call's error", async () => {
  await withNestedCalls(async (base) => {
    const cases: [string, string, string][] = [
      // Not 503 FUNCTION_UNAVAILABLE "nested::missing is not registered": it is, and it answered.
      ["/nested/missing", "function_not_found", "Function orders::lookup not found"],
      [
        "/nested/state",
        "INVALID_ARGUMENT",
        'Invalid input for state::get: "key" must be a non-empty string: it is missing',
      ],
    ];
    for (const [path, code, message] of cases) {
      const r = await fetchJson(base, path);
      assert.equal(r.status, 500, path);
      assert.equal(r.headers.get("retry-after"), null, path);
      const error = (r.body as ErrorReply).error;
      assert.deepEqual([error.code, error.message], [code, message], path);
      assert.match(error.error_id ?? "", /^[0-9a-f]{16}$/, path);
    }
  });
});

Deno.test("a handler whose error reads like the engine's failure of the call to it gets 500 with its own error", async () => {
  await withNestedCalls(async (base) => {
    const cases: [string, string][] = [
      ["function_not_found", "Function spoof::function_not_found not found"],
      ["invocation_timeout", "Invocation of spoof::invocation_timeout timed out after 10ms"],
      [
        "invocation_stopped",
        'Invocation of spoof::invocation_stopped stopped: worker "w" disconnected before answering',
      ],
      ["overloaded", 'Cannot call spoof::overloaded: worker "w" is not reading its socket'],
      [
        "frame_too_large",
        'The result of "spoof::frame_too_large" from worker "w" was refused: too large',
      ],
    ];
    for (const [code, message] of cases) {
      const r = await fetchJson(base, `/spoof/${code}`);
      assert.equal(r.status, 500, code);
      assert.equal(r.headers.get("retry-after"), null, code);
      const error = (r.body as ErrorReply).error;
      assert.deepEqual([error.code, error.message], [code, message]);
      assert.match(error.error_id ?? "", /^[0-9a-f]{16}$/, code);
    }
  });
});

Deno.test("a handler whose worker is killed mid-call gets 502 invocation_stopped", async () => {
  await withNestedCalls(async (base, engine, worker) => {
    const reply = fetchJson(base, "/hang");
    await until(
      () => engine.engine.invocations.perFunction()["nested::hang"] === 1,
      "the call to nested::hang in flight",
    );
    await worker.kill();
    const r = await reply;
    assert.equal(r.status, 502);
    const error = (r.body as ErrorReply).error;
    assert.equal(error.code, "invocation_stopped");
    assert.match(
      error.message,
      /^Invocation of nested::hang stopped: worker "nested-calls" disconnected before answering$/,
    );
    assert.match(error.error_id ?? "", /^[0-9a-f]{16}$/);
  });
});

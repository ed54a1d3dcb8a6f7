/**
 * engine-http end to end: a handler (a real worker process) whose own call to
 * another function fails answers 500 with that failure, not as if the
 * handler itself were missing, stopped or late.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { stateWorker } from "../state/mod.ts";
import { fetchJson, Fixture } from "./_e2e.ts";
import { httpWorker } from "./mod.ts";

Deno.test("a handler whose call to another function fails gets 500 with that call's error", async () => {
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
      const r = await fetchJson(`http://127.0.0.1:${port}`, path);
      assert.equal(r.status, 500, path);
      assert.equal(r.headers.get("retry-after"), null, path);
      const error = (r.body as { error: { code: string; message: string; error_id?: string } })
        .error;
      assert.deepEqual([error.code, error.message], [code, message], path);
      assert.match(error.error_id ?? "", /^[0-9a-f]{16}$/, path);
    }
  } finally {
    await worker.kill();
    await engine.stop();
  }
});

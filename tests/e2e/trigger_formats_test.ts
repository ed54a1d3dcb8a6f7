/**
 * Trigger type schemas and config summaries, against an engine process:
 * `engine::triggers::info/list` return the JSON Schemas a type declared
 * (engine-http's and engine-state's, and a worker's from its
 * `registertriggertype`), and `engine::registered-triggers::list/info` give
 * each trigger's `config_summary`.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";

Deno.test("trigger types list their schemas and registered triggers their config summary", async () => {
  const httpPort = freePort();
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n  - name: engine-state\n    config: { adapter: memory }\n`,
  );
  const engine = await spawnEngine({ config: file });
  const w = await RawWorker.connect(engine.url);
  try {
    const every = { type: "object", properties: { every: { type: "integer" } } };
    const tick = { type: "object", properties: { at: { type: "string" } } };
    w.send({
      type: "registertriggertype",
      id: "ticker",
      description: "ticks",
      trigger_request_format: every,
      call_request_format: tick,
    });
    w.send({ type: "registertriggertype", id: "plain", description: "declares no schema" });
    const triggers: [string, string, unknown][] = [
      ["h1", "http", { api_path: "orders/:id", http_method: "post" }],
      ["h2", "http", { api_path: "/health" }],
      ["s1", "state", { scope: "orders", key: "42" }],
      ["s2", "state", {}],
      ["c1", "ticker", { every: 5, label: "five\nseconds" }],
      ["c2", "ticker", { note: "x".repeat(200) }],
    ];
    for (const [id, type, config] of triggers) {
      w.send({ type: "registertrigger", id, trigger_type: type, function_id: "f::g", config });
    }
    const info = async (id: string) =>
      (await w.call("engine::triggers::info", { id })).result.triggers[0] as Frame;
    const http = await info("http");
    const config = http.trigger_request_format;
    assert.deepEqual(config.required, ["api_path"]);
    assert.deepEqual(
      Object.keys(config.properties),
      ["api_path", "http_method", "condition_function_id", "middleware_function_ids"],
    );
    assert.deepEqual(config.properties.http_method.enum, [
      "GET",
      "POST",
      "PUT",
      "PATCH",
      "DELETE",
      "HEAD",
      "OPTIONS",
    ]);
    assert.ok(
      ["body", "headers", "path_params", "trigger"].every((k) =>
        k in http.call_request_format.properties
      ),
    );
    assert.deepEqual(Object.keys(http.call_response_format.properties), [
      "status_code",
      "headers",
      "body",
    ]);
    const state = await info("state");
    assert.deepEqual(Object.keys(state.trigger_request_format.properties), [
      "scope",
      "key",
      "condition_function_id",
    ]);
    assert.equal(state.call_request_format.properties.type.const, "state");
    const ticker = await info("ticker");
    assert.deepEqual(ticker, {
      id: "ticker",
      description: "ticks",
      worker_name: ticker.worker_name,
      trigger_request_format: every,
      call_request_format: tick,
    });
    const listedTypes = (await w.call("engine::triggers::list", {})).result.triggers as Frame[];
    assert.deepEqual(listedTypes.find((t) => t.id === "ticker"), ticker);
    // A type that declared none lists none (the engine's own declare theirs).
    assert.equal("trigger_request_format" in listedTypes.find((t) => t.id === "plain")!, false);
    assert.equal(listedTypes.find((t) => t.id === "log")!.trigger_request_format.type, "object");

    const registered = (await w.call("engine::registered-triggers::list", {})).result
      .registered_triggers as Frame[];
    const summaries = Object.fromEntries(registered.map((t) => [t.id, t.config_summary]));
    assert.deepEqual(triggers.map(([id]) => summaries[id]), [
      "POST /orders/:id",
      "GET /health",
      'scope "orders", key "42"',
      "every change",
      "every=5, label=five seconds",
      `note=${"x".repeat(74)}…`,
    ]);
    const one = await w.call("engine::registered-triggers::info", { id: "h1" });
    assert.equal(one.result.registered_triggers[0].config_summary, "POST /orders/:id");
  } finally {
    await w.close();
    await engine.stop();
  }
});

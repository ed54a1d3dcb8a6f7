/**
 * Global middleware from top-level `rest_api.middleware` and from the HTTP
 * worker's own `middleware` both run, by priority, before every handler.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

Deno.test("rest_api.middleware and engine-http's middleware are merged and run by priority", async () => {
  const { file } = await tempConfig(`port: 0
console:
  enabled: false
rest_api:
  middleware:
    - function_id: mw::second
      priority: 20
workers:
  - name: engine-http
    config:
      port: 0
      middleware:
        - function_id: mw::first
          priority: 10
`);
  const engine = await spawnEngine({ config: file });
  const line = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
  const base = `http://127.0.0.1:${/"port":(\d+)/.exec(line)![1]}`;
  const w = await RawWorker.connect(engine.url);
  const order: string[] = [];
  try {
    w.serve("mw::first", () => {
      order.push("first");
      return { action: "continue", context: { seen: ["first"] } };
    });
    w.serve("mw::second", (input) => {
      order.push("second");
      const ctx = input as {
        context: { seen: string[] };
        request: { headers: Record<string, string> };
      };
      if (ctx.request.headers["x-block"]) {
        return { action: "respond", response: { status_code: 401, body: { error: "blocked" } } };
      }
      return { action: "continue", context: { seen: [...ctx.context.seen, "second"] } };
    });
    w.serve(
      "api::hello",
      (req) => ({ status_code: 200, body: { context: (req as { context: unknown }).context } }),
    );
    w.send({
      type: "registertrigger",
      id: "t1",
      trigger_type: "http",
      function_id: "api::hello",
      config: { api_path: "/hello", http_method: "GET" },
    });
    await waitForFunctions(w, ["mw::first", "mw::second", "api::hello"]);
    let r: Response | undefined;
    for (let i = 0; i < 100; i++) {
      r = await fetch(`${base}/hello`);
      if (r.status !== 404) break;
      await r.body?.cancel();
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(r!.status, 200);
    assert.deepEqual(await r!.json(), { context: { seen: ["first", "second"] } });
    assert.deepEqual(order, ["first", "second"]);

    const blocked = await fetch(`${base}/hello`, { headers: { "x-block": "1" } });
    assert.equal(blocked.status, 401);
    assert.deepEqual(await blocked.json(), { error: "blocked" });
  } finally {
    await w.close();
    await engine.stop();
  }
});

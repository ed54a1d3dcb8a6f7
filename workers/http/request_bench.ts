/**
 * engine-http's own share of a request, without sockets: a POST of 100 B
 * JSON goes through the worker's app (configuredApp, as the worker wires it)
 * and the engine's call path (route, invocation, span) to a built-in echo
 * function, and its response is read. Deno.serve, the WebSocket hop to a
 * worker process and the kernel are left out; the Request is made per
 * iteration. `deno bench workers/http/request_bench.ts`.
 */
import { BuiltinPeer } from "../../engine/builtin_peer.ts";
import { Engine } from "../../engine/core.ts";
import { LogStore } from "../../engine/observability/logs.ts";
import { TraceStore } from "../../engine/observability/traces.ts";
import { parseHttpConfig } from "./config.ts";
import { configuredApp } from "./mod.ts";
import { LiveRoutes, routeOf } from "./triggers.ts";

function setup() {
  const logs = new LogStore();
  const engine = new Engine({ log: logs.logger({ source: "engine" }), traces: new TraceStore() });
  const peer = new BuiltinPeer(engine);
  peer.attach(engine.connect(peer, { name: "bench" }));
  const api = peer.api(logs.logger({ source: "bench" }), ".");
  api.registerFunction(
    "bench::http",
    (request) => ({ status_code: 200, body: (request as { body: unknown }).body }),
  );
  const routes = new LiveRoutes();
  routes.add(routeOf({
    id: "t1",
    type: "http",
    functionId: "bench::http",
    workerId: "bench",
    config: { api_path: "/bench/echo", http_method: "POST" },
  }));
  const { app } = configuredApp(parseHttpConfig({}), {
    routes,
    invoker: api,
    log: api.log,
    recordSpan: (span) => api.recordSpan(span),
  });
  const body = JSON.stringify({ data: "x".repeat(89) });
  return async () => {
    const response = await app.fetch(
      new Request("http://127.0.0.1:3111/bench/echo", {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "content-length": String(body.length) },
      }),
    );
    if (response.status !== 200) throw new Error(`Status ${response.status}`);
    await response.text();
  };
}

const request = setup();

Deno.bench("http_request POST 100 B JSON, one at a time (in-process engine)", async () => {
  await request();
});

Deno.bench("http_request POST 100 B JSON, 64 in flight (in-process engine)", async () => {
  await Promise.all(Array.from({ length: 64 }, request));
});

import assert from "node:assert/strict";
import { CallError, markEngineFailure } from "../../engine/api.ts";
import { errorOf, hang, postStream, testApp } from "./_testing.ts";

const ok = (body: unknown = { ok: true }) => ({ status_code: 200, body });

Deno.test("app hands the handler the reference's request fields plus context, and maps its response", async () => {
  const { app, calls } = testApp({
    functions: {
      "users::get": () => ({ status_code: 201, body: { id: 7 }, headers: { "x-handled": "yes" } }),
    },
    triggers: [{
      function_id: "users::get",
      config: { api_path: "users/:id", http_method: "get" },
      metadata: { m: 1 },
    }],
  });
  const response = await app.request("/users/a%20b?page=1&page=2&q=hello+world&flag", {
    headers: { "X-Custom": "abc" },
  });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get("x-handled"), "yes");
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.deepEqual(await response.json(), { id: 7 });
  assert.equal(calls.length, 1);
  const [call] = calls;
  assert.deepEqual(call!.payload, {
    path_params: { id: "a b" },
    query_params: { page: "2", q: "hello world", flag: "" },
    headers: { "x-custom": "abc" },
    method: "GET",
    path: "/users/a%20b",
    body: null,
    trigger: { type: "http", path: "/users/:id", method: "GET" },
    context: {},
  });
  assert.deepEqual(call!.options.metadata, { m: 1 });
  assert.match(call!.options.traceparent!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.ok(call!.options.timeoutMs! > 29_000 && call!.options.timeoutMs! <= 30_000);
});

Deno.test("app answers 404 and 405 with the error body, Allow and CORS headers", async () => {
  const { app } = testApp({
    functions: { f: () => ok() },
    triggers: [{ function_id: "f", config: { api_path: "/items", http_method: "POST" } }],
    config: { cors: { allowed_origins: ["localhost"] } },
  });
  const origin = { origin: "http://localhost:5173" };
  const missing = await app.request("/nothing", { headers: origin });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.deepEqual(await errorOf(missing), {
    code: "NOT_FOUND",
    message: 'No route matches "GET /nothing"',
  });
  const wrong = await app.request("/items", { method: "DELETE", headers: origin });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
  assert.equal(wrong.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.deepEqual(await errorOf(wrong), {
    code: "METHOD_NOT_ALLOWED",
    message: 'Method DELETE is not allowed for "/items": use POST',
  });
});

Deno.test("app runs global middleware by priority, then the condition, route middleware and handler", async () => {
  const order: string[] = [];
  const step = (name: string, result: unknown = { action: "continue" }) => () => {
    order.push(name);
    return result;
  };
  const { app, calls } = testApp({
    functions: {
      "mw::late": step("late"),
      "mw::first": step("first"),
      "mw::second": step("second"),
      "cond::check": step("condition", true),
      "mw::route1": step("route1"),
      "mw::route2": step("route2"),
      "orders::create": step("handler", ok()),
    },
    config: {
      middleware: [
        { function_id: "mw::late", priority: 5 },
        { function_id: "mw::first" },
        { function_id: "mw::second", priority: 0 },
      ],
    },
    triggers: [{
      function_id: "orders::create",
      config: {
        api_path: "/orders",
        http_method: "POST",
        condition_function_id: "cond::check",
        middleware_function_ids: ["mw::route1", "mw::route2"],
      },
    }],
  });
  const response = await app.request("/orders", {
    method: "POST",
    body: '{"tier":"gold"}',
    headers: { "content-type": "application/json", "x-api-key": "k" },
  });
  assert.equal(response.status, 200);
  assert.deepEqual(order, ["first", "second", "late", "condition", "route1", "route2", "handler"]);
  assert.deepEqual(calls[0]!.payload, {
    phase: "preHandler",
    request: {
      path_params: {},
      query_params: {},
      headers: { "content-type": "application/json", "x-api-key": "k" },
      method: "POST",
    },
    context: {},
  });
  const condition = calls[3]!.payload as { body: unknown };
  assert.deepEqual(condition.body, { tier: "gold" });
  const traces = new Set(calls.map((c) => c.options.traceparent));
  assert.equal(traces.size, 1, "every call of a request carries the same traceparent");
});

Deno.test("app passes a middleware's context to later middleware and to the handler", async () => {
  const { app, calls } = testApp({
    functions: {
      "auth::check": () => ({ action: "continue", context: { user: "ada" } }),
      "mw::role": (input) => ({
        action: "continue",
        context: {
          role: (input as { context: { user: string } }).context.user === "ada" ? "admin" : "guest",
        },
      }),
      "me::get": (req) => ok((req as { context: unknown }).context),
    },
    config: { middleware: [{ function_id: "auth::check" }] },
    triggers: [{
      function_id: "me::get",
      config: { api_path: "/me", middleware_function_ids: ["mw::role"] },
    }],
  });
  const response = await app.request("/me");
  assert.deepEqual(await response.json(), { user: "ada", role: "admin" });
  assert.deepEqual((calls[1]!.payload as { context: unknown }).context, { user: "ada" });
});

Deno.test("app returns a middleware's respond at once, without reading the body", async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode("{}"));
      controller.close();
    },
  }, { highWaterMark: 0 });
  const { app, calls } = testApp({
    functions: {
      "auth::key": () => ({
        action: "respond",
        response: { status_code: 401, body: { error: "Invalid API key" } },
      }),
      "never::called": () => ok(),
    },
    config: { middleware: [{ function_id: "auth::key" }, { function_id: "never::called" }] },
    triggers: [{ function_id: "never::called", config: { api_path: "/x", http_method: "POST" } }],
  });
  const response = await postStream(app, "/x", body);
  assert.equal(response.status, 401);
  assert.deepEqual(await response.json(), { error: "Invalid API key" });
  assert.deepEqual(calls.map((c) => c.functionId), ["auth::key"]);
  assert.equal(pulled, 0);
});

Deno.test("app answers 422 when the condition fails, and runs nothing after it", async () => {
  for (const verdict of [false, { ok: false }]) {
    const { app, calls } = testApp({
      functions: {
        "cond::gold": () => verdict,
        "mw::r": () => ({ action: "continue" }),
        "h": () => ok(),
      },
      triggers: [{
        function_id: "h",
        config: {
          api_path: "/o",
          http_method: "POST",
          condition_function_id: "cond::gold",
          middleware_function_ids: ["mw::r"],
        },
      }],
    });
    const response = await app.request("/o", { method: "POST", body: '{"tier":"silver"}' });
    assert.equal(response.status, 422);
    assert.deepEqual(await errorOf(response), {
      code: "CONDITION_NOT_MET",
      message: "Request condition not met",
    });
    assert.deepEqual(calls.map((c) => c.functionId), ["cond::gold"]);
  }
});

Deno.test("app answers a throwing middleware with 500 and an error_id that is in the log", async () => {
  const { app, log, spans } = testApp({
    functions: {
      "mw::boom": () => {
        throw new CallError({ code: "invocation_failed", message: "boom", stacktrace: "at mw" });
      },
      h: () => ok(),
    },
    config: { middleware: [{ function_id: "mw::boom" }] },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const response = await app.request("/x");
  assert.equal(response.status, 500);
  const error = await errorOf(response);
  assert.equal(error.code, "invocation_failed");
  assert.equal(error.message, "boom");
  assert.match(error.error_id!, /^[0-9a-f]{16}$/);
  const logged = log.entries.find((e) => e.level === "error");
  assert.ok(logged?.message.includes(error.error_id!));
  assert.deepEqual(logged?.data, {
    error_id: error.error_id,
    code: "invocation_failed",
    role: "middleware",
    function_id: "mw::boom",
    stacktrace: "at mw",
  });
  // The entry names the function and the request's trace, so the console links the two.
  assert.equal(logged?.fields?.function, "mw::boom");
  assert.match(String(logged?.fields?.traceId), /^[0-9a-f]{32}$/);
  assert.equal(logged?.fields?.traceId, spans[0]?.traceId, "the request's own trace");
});

Deno.test("app answers a middleware that hangs past middleware_timeout with 504", async () => {
  const { app } = testApp({
    functions: { "mw::slow": (_, options) => hang(options), h: () => ok() },
    config: { middleware: [{ function_id: "mw::slow" }], middleware_timeout: 30 },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const response = await app.request("/x");
  assert.equal(response.status, 504);
  assert.deepEqual(await errorOf(response), {
    code: "MIDDLEWARE_TIMEOUT",
    message: 'Middleware "mw::slow" did not answer within 30 ms',
  });
});

Deno.test("app answers a handler that outlives default_timeout with 504", async () => {
  const { app } = testApp({
    functions: { h: (_, options) => hang(options) },
    config: { default_timeout: 30 },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const response = await app.request("/x");
  assert.equal(response.status, 504);
  assert.deepEqual(await errorOf(response), {
    code: "REQUEST_TIMEOUT",
    message: 'Request timed out: function "h" did not answer',
  });
});

Deno.test("app answers handler failures with 500 naming the function", async () => {
  const cases: [() => unknown, string, string][] = [
    [() => undefined, "INVALID_RESPONSE", 'Function "h" returned no response'],
    [
      () => "text",
      "INVALID_RESPONSE",
      'Function "h" returned the string "text" instead of a map with status_code, headers and body',
    ],
    [
      () => {
        throw new CallError({ code: "invocation_failed", message: "Order not found" });
      },
      "invocation_failed",
      "Order not found",
    ],
  ];
  for (const [handler, code, message] of cases) {
    const { app, log } = testApp({
      functions: { h: handler },
      triggers: [{ function_id: "h", config: { api_path: "/x" } }],
    });
    const response = await app.request("/x");
    assert.equal(response.status, 500, message);
    const error = await errorOf(response);
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    assert.ok(error.error_id);
    assert.equal(log.entries.filter((e) => e.level === "error").length, 1);
  }
});

Deno.test("app answers 502 when the handler's worker went away mid-call, 503 when none can take it", async () => {
  const cases: [string, number, string | null][] = [
    ["invocation_stopped", 502, null],
    ["overloaded", 503, "1"],
  ];
  for (const [code, status, retryAfter] of cases) {
    const { app, log } = testApp({
      functions: {
        h: () => {
          // As the engine fails the call itself (this invoker passes on what its functions throw).
          throw new CallError(markEngineFailure({ code, message: `Invocation of h ${code}` }));
        },
      },
      triggers: [{ function_id: "h", config: { api_path: "/x" } }],
    });
    const response = await app.request("/x");
    assert.equal(response.status, status, code);
    assert.equal(response.headers.get("retry-after"), retryAfter, code);
    const error = await errorOf(response);
    assert.equal(error.code, code);
    assert.equal(error.message, `Invocation of h ${code}`);
    assert.equal(error.error_id !== undefined, status === 502, "an error_id on the 502");
    assert.equal(log.entries.filter((e) => e.level === "error").length, status === 502 ? 1 : 0);
  }
});

Deno.test("app answers 503 with Retry-After while a function is not registered", async () => {
  const { app } = testApp({
    functions: { h: () => ok() },
    triggers: [
      { function_id: "later::fn", config: { api_path: "/later" } },
      {
        function_id: "h",
        config: { api_path: "/guarded", middleware_function_ids: ["later::mw"] },
      },
    ],
  });
  for (
    const [path, message] of [
      ["/later", 'Function "later::fn" is not registered: its worker may still be starting'],
      ["/guarded", 'Middleware "later::mw" is not registered: its worker may still be starting'],
    ]
  ) {
    const response = await app.request(path!);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.deepEqual(await errorOf(response), { code: "FUNCTION_UNAVAILABLE", message });
  }
});

Deno.test("app answers a malformed JSON body with 400 and an oversized one with 413", async () => {
  const { app, calls } = testApp({
    functions: { h: () => ok() },
    config: { body_limit: 16 },
    triggers: [{ function_id: "h", config: { api_path: "/x", http_method: "POST" } }],
  });
  const bad = await app.request("/x", {
    method: "POST",
    body: '{"a":',
    headers: { "content-type": "application/json" },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(await errorOf(bad), {
    code: "INVALID_BODY",
    message: "Request body is not valid JSON: unexpected end of input at line 1, column 6",
  });
  const big = await app.request("/x", {
    method: "POST",
    body: "x".repeat(17),
    headers: { "content-type": "text/plain" },
  });
  assert.equal(big.status, 413);
  assert.equal((await errorOf(big)).code, "PAYLOAD_TOO_LARGE");
  assert.equal(calls.length, 0);
});

Deno.test("app answers a preflight itself and routes any other OPTIONS", async () => {
  const { app, calls } = testApp({
    functions: {
      opts: () => ({
        status_code: 200,
        body: "options route",
        headers: { "content-type": "text/plain" },
      }),
    },
    config: { cors: { allowed_origins: ["https://app.test"], allowed_methods: ["GET", "POST"] } },
    triggers: [{ function_id: "opts", config: { api_path: "/x", http_method: "OPTIONS" } }],
  });
  const preflight = await app.request("/x", {
    method: "OPTIONS",
    headers: { origin: "https://app.test", "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, POST");
  assert.equal(calls.length, 0);
  const plain = await app.request("/x", {
    method: "OPTIONS",
    headers: { origin: "https://app.test" },
  });
  assert.equal(plain.status, 200);
  assert.equal(await plain.text(), "options route");
  assert.equal(plain.headers.get("access-control-allow-origin"), "https://app.test");
});

Deno.test("app serves HEAD from a GET route without a body", async () => {
  const { app } = testApp({
    functions: { h: () => ok({ big: true }) },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const response = await app.request("/x", { method: "HEAD" });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "");
});

Deno.test("app continues an inbound traceparent and passes baggage on", async () => {
  const { app, calls, spans } = testApp({
    functions: { h: () => ok() },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const inbound = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  await app.request("/x", { headers: { traceparent: inbound, baggage: "user=ada" } });
  const sent = calls[0]!.options.traceparent!;
  assert.match(sent, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
  assert.notEqual(sent, inbound);
  assert.equal(calls[0]!.options.baggage, "user=ada");
  // The request's span: the calls' parent, under the caller's span.
  assert.equal(spans.length, 1);
  assert.equal(spans[0]!.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.equal(spans[0]!.spanId, sent.slice(36, 52));
  assert.equal(spans[0]!.parentSpanId, "00f067aa0ba902b7");

  // Without an inbound header the request's span starts a trace.
  await app.request("/x");
  const fresh = calls[1]!.options.traceparent!;
  assert.equal(spans[1]!.traceId, fresh.slice(3, 35));
  assert.equal(spans[1]!.spanId, fresh.slice(36, 52));
  assert.equal(spans[1]!.parentSpanId, undefined);
});

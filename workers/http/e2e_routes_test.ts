/**
 * engine-http end to end: a real engine, real sockets, a real worker process.
 */
import assert from "node:assert/strict";
import { RawWorker } from "../../tests/support/raw_worker.ts";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";

Deno.test("engine-http serves a worker process's routes: parameters, statuses, bodies", async (t) => {
  const stack = await startStack({ default_timeout: 1000, body_limit: 1024 });
  const worker = await Fixture.start("api_worker", stack.engine);
  const get = (path: string, init?: RequestInit) => fetchJson(stack.base, path, init);
  try {
    await t.step("path and query parameters reach the handler", async () => {
      const r = await get("/users/42?page=2&q=hello%20world");
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        id: "42",
        query: { page: "2", q: "hello world" },
        path: "/users/42",
        trigger: { type: "http", path: "/users/:id", method: "GET" },
        context: {},
      });
    });

    await t.step("a literal segment wins over :param", async () => {
      assert.deepEqual((await get("/users/me")).body, { me: true });
    });

    await t.step("404 and 405 carry the error body", async () => {
      const missing = await get("/nowhere");
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, {
        error: { code: "NOT_FOUND", message: 'No route matches "GET /nowhere"' },
      });
      const wrong = await get("/users/42", { method: "DELETE" });
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get("allow"), "GET, HEAD");
      assert.equal((wrong.body as { error: { code: string } }).error.code, "METHOD_NOT_ALLOWED");
    });

    await t.step("bodies are parsed by content type", async () => {
      const cases: [string, string, unknown][] = [
        ["application/json; charset=utf-8", '{"a":[1,2]}', { a: [1, 2] }],
        ["text/plain", "just text", "just text"],
        ["application/x-www-form-urlencoded", "a=1&b=two", { a: "1", b: "two" }],
        ["application/octet-stream", "\x01\x02", {
          content_type: "application/octet-stream",
          base64: "AQI=",
        }],
      ];
      for (const [type, body, expected] of cases) {
        const r = await get("/echo", { method: "POST", body, headers: { "content-type": type } });
        assert.equal(r.status, 200, type);
        assert.deepEqual(r.body, { body: expected, content_type: type });
      }
    });

    await t.step("a body that is not JSON gets 400, an oversized one 413", async () => {
      const bad = await get("/echo", {
        method: "POST",
        body: "{oops",
        headers: { "content-type": "application/json" },
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, {
        error: {
          code: "INVALID_BODY",
          message: 'Request body is not valid JSON: unexpected "o" at line 1, column 2',
        },
      });
      const big = await get("/echo", {
        method: "POST",
        body: "x".repeat(2048),
        headers: { "content-type": "text/plain" },
      });
      assert.equal(big.status, 413);
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(512));
          controller.close();
        },
      });
      const streamed = await get(
        "/echo",
        { method: "POST", body: chunked, duplex: "half" } as RequestInit,
      );
      assert.equal(streamed.status, 413);
    });

    await t.step("handler outcomes map to statuses", async () => {
      const text = await fetch(`${stack.base}/text`);
      assert.equal(text.headers.get("content-type"), "text/plain");
      assert.equal(await text.text(), "plain text");

      // No value, and no response channel opened within the grace: no response, a 500.
      const nothing = await get("/nothing");
      assert.equal(nothing.status, 500);
      const nothingError =
        (nothing.body as { error: { code: string; message: string; error_id: string } }).error;
      assert.equal(nothingError.code, "INVALID_RESPONSE");
      assert.equal(nothingError.message, 'Function "h::nothing" returned no response');
      assert.match(nothingError.error_id, /^[0-9a-f]{16}$/);

      const fails = await get("/fails");
      assert.equal(fails.status, 500);
      const failsError =
        (fails.body as { error: { code: string; message: string; error_id: string } }).error;
      assert.equal(failsError.code, "invocation_failed");
      assert.equal(failsError.message, "Order not found");
      const logged = stack.engine.logs.query({ level: "error", text: failsError.error_id });
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.source, "engine-http");
      assert.deepEqual(logged[0]!.data, {
        error_id: failsError.error_id,
        code: "invocation_failed",
        role: "function",
        function_id: "h::fails",
        stacktrace: (logged[0]!.data as { stacktrace: string }).stacktrace,
      });
      assert.match((logged[0]!.data as { stacktrace: string }).stacktrace, /Order not found/);

      const slow = await get("/slow");
      assert.equal(slow.status, 504);
      assert.deepEqual(slow.body, {
        error: {
          code: "REQUEST_TIMEOUT",
          message: 'Request timed out: function "h::slow" did not answer',
        },
      });
    });
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

Deno.test("engine-http refuses an invalid http trigger with the exact reason", async () => {
  const stack = await startStack();
  const raw = await RawWorker.connect(stack.engine.url);
  try {
    const refusal = async (id: string, functionId: string, config: unknown) => {
      const result = raw.next((f) => f.type === "triggerregistrationresult" && f.id === id);
      raw.send({
        type: "registertrigger",
        id,
        trigger_type: "http",
        function_id: functionId,
        config,
      });
      return (await result).error;
    };
    // Accepted triggers get no answer; a call answered afterwards shows the engine handled it.
    raw.send({
      type: "registertrigger",
      id: "ok",
      trigger_type: "http",
      function_id: "a::get",
      config: { api_path: "/items/:id" },
    });
    await raw.call("engine::health::check", {});
    assert.equal(raw.frames.some((f) => f.type === "triggerregistrationresult"), false);
    const cases: [unknown, string, string][] = [
      [{ http_method: "GET" }, "a::x", "Invalid http trigger config: api_path is required"],
      [
        { api_path: "/x", http_method: "FETCH" },
        "a::x",
        'Invalid http trigger config: http_method "FETCH" is not supported: use one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
      ],
      [
        { api_path: "items/:id", http_method: "get" },
        "b::other",
        'Cannot bind route "GET /items/:id" to function "b::other": already bound to function "a::get" by trigger "ok"',
      ],
      [
        { api_path: "/items/:itemId", http_method: "PUT" },
        "a::put",
        'Cannot register route "PUT /items/:itemId": parameter ":itemId" clashes with ":id" of route "GET /items/:id": ' +
        "parameters at the same position need the same name",
      ],
    ];
    for (const [i, [config, functionId, message]] of cases.entries()) {
      assert.deepEqual(await refusal(`bad${i}`, functionId, config), {
        // A clash with a live route is offered again when a route goes.
        code: message.startsWith("Invalid") ? "trigger_registration_failed" : "trigger_taken",
        message,
      });
    }
    const status = stack.engine.describeBuiltin("engine-http") as { routes: unknown[] };
    assert.deepEqual(status.routes, [{ method: "GET", path: "/items/:id", function_id: "a::get" }]);
  } finally {
    await raw.close();
    await stack.stop();
  }
});

Deno.test("engine-http answers 503 with Retry-After until a route's function registers", async () => {
  const stack = await startStack();
  const raw = await RawWorker.connect(stack.engine.url);
  try {
    raw.send({
      type: "registertrigger",
      id: "late",
      trigger_type: "http",
      function_id: "late::fn",
      config: { api_path: "/late" },
    });
    await raw.call("engine::health::check", {}); // the registration is handled before this answer
    const early = await fetchJson(stack.base, "/late");
    assert.equal(early.status, 503);
    assert.equal(early.headers.get("retry-after"), "1");
    assert.equal((early.body as { error: { code: string } }).error.code, "FUNCTION_UNAVAILABLE");
    raw.serve("late::fn", () => ({ status_code: 200, body: "now" }));
    await raw.call("engine::health::check", {}); // the registration is handled before this answer
    const later = await fetchJson(stack.base, "/late");
    assert.equal(later.status, 200);
    assert.equal(later.body, "now");
  } finally {
    await raw.close();
    await stack.stop();
  }
});

Deno.test("engine-http drops a worker's routes when its process is killed", async () => {
  const stack = await startStack();
  const worker = await Fixture.start("vanishing_worker", stack.engine);
  try {
    assert.deepEqual((await fetchJson(stack.base, "/vanish")).body, { here: true });
    const gone = new Promise<void>((resolve) => {
      const unsubscribe = stack.engine.engine.subscribe((event) => {
        if (event.type !== "worker_disconnected") return;
        unsubscribe();
        resolve();
      });
    });
    await worker.kill();
    await gone;
    const after = await fetchJson(stack.base, "/vanish");
    assert.equal(after.status, 404);
    assert.deepEqual(
      (stack.engine.describeBuiltin("engine-http") as { routes: unknown[] }).routes,
      [],
    );
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

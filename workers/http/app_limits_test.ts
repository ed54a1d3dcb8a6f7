import assert from "node:assert/strict";
import { errorOf, gate, hang, postStream, testApp, until } from "./_testing.ts";
import { routeOf } from "./triggers.ts";

Deno.test("app queues requests over concurrency_request_limit and refuses beyond four times it", async () => {
  const release = gate();
  let started = 0;
  const { app, limiter } = testApp({
    functions: {
      h: async () => {
        started++;
        await release.opened;
        return { body: "done" };
      },
    },
    config: { concurrency_request_limit: 1 },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const admitted = Array.from({ length: 5 }, () => app.request("/x"));
  await until(() => started === 1 && limiter.waiting === 4, "one running and four waiting");
  const refused = await app.request("/x");
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.deepEqual(await errorOf(refused), {
    code: "OVERLOADED",
    message: "Too many requests: 1 in progress and 4 waiting",
  });
  release.open();
  const responses = await Promise.all(admitted);
  assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 200]);
  await Promise.all(responses.map((r) => r.text()));
  assert.equal(started, 5);
  assert.equal(limiter.active, 0);
  assert.equal(limiter.waiting, 0);
});

Deno.test("app counts the wait for a slot against default_timeout", async () => {
  const { app, limiter, calls } = testApp({
    functions: { h: () => ({ body: 1 }) },
    config: { concurrency_request_limit: 1, default_timeout: 40 },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  assert.ok(limiter.tryAcquire(), "the slot, held as if by a long request");
  const response = await app.request("/x");
  assert.equal(response.status, 504);
  assert.deepEqual(await errorOf(response), {
    code: "REQUEST_TIMEOUT",
    message: "Request timed out: waiting for a free request slot (concurrency_request_limit 1)",
  });
  assert.equal(limiter.waiting, 0);
  assert.equal(calls.length, 0);
  limiter.release();
  assert.equal((await app.request("/x")).status, 200);
});

Deno.test("app counts reading the body against default_timeout, and says so", async () => {
  // A body whose first chunk never comes: the client went quiet mid-request.
  const body = new ReadableStream<Uint8Array>();
  const { app, limiter, calls } = testApp({
    functions: { h: () => ({ body: 1 }) },
    config: { default_timeout: 40 },
    triggers: [{ function_id: "h", config: { api_path: "/x", http_method: "POST" } }],
  });
  const response = await postStream(app, "/x", body);
  assert.equal(response.status, 504);
  assert.deepEqual(await errorOf(response), {
    code: "REQUEST_TIMEOUT",
    message: "Request timed out: reading the request body",
  });
  assert.equal(calls.length, 0);
  assert.equal(limiter.active, 0);
});

Deno.test("app ends requests in progress with 503 when the worker stops", async () => {
  let started = false;
  const { app, stopping } = testApp({
    functions: {
      h: (_, options) => {
        started = true;
        return hang(options);
      },
    },
    triggers: [{ function_id: "h", config: { api_path: "/x" } }],
  });
  const pending = app.request("/x");
  await until(() => started, "the handler call");
  stopping.abort(new DOMException("stopping", "AbortError"));
  const response = await pending;
  assert.equal(response.status, 503);
  assert.equal((await errorOf(response)).code, "SHUTTING_DOWN");
});

Deno.test("app reads a route change at the next request", async () => {
  const { app, routes } = testApp({ functions: { h: () => ({ body: 1 }) } });
  assert.equal((await app.request("/late")).status, 404);
  const binding = {
    id: "t9",
    type: "http",
    functionId: "h",
    config: { api_path: "/late" },
    workerId: "w",
  };
  routes.add(routeOf(binding));
  assert.equal((await app.request("/late")).status, 200);
  routes.remove("t9");
  assert.equal((await app.request("/late")).status, 404);
});

/**
 * What the app answers clients that misbehave or leave: bodies that break
 * off, clients that go away while waiting for a slot, `HEAD` requests.
 */
import assert from "node:assert/strict";
import { errorOf, gate, postStream, testApp, until } from "./_testing.ts";

Deno.test("app answers a body that breaks off with 400 INVALID_BODY, logging no error", async () => {
  const { app, calls, log, limiter } = testApp({
    functions: { f: () => ({ status_code: 200 }) },
    triggers: [{ function_id: "f", config: { api_path: "/x", http_method: "POST" } }],
  });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"a'));
      controller.error(new Error("connection reset"));
    },
  });
  const response = await postStream(app, "/x", body);
  assert.equal(response.status, 400);
  assert.deepEqual(await errorOf(response), {
    code: "INVALID_BODY",
    message: "Request body could not be read: it broke off (connection reset)",
  });
  assert.equal(calls.length, 0);
  assert.deepEqual(log.entries.filter((e) => e.level === "error"), []);
  assert.equal(limiter.active, 0);
});

Deno.test("app drops a request whose client left while it waited for a slot", async () => {
  const started = gate();
  const finish = gate();
  const { app, calls, limiter } = testApp({
    functions: {
      slow: async () => {
        started.open();
        await finish.opened;
        return { status_code: 200 };
      },
      fast: () => ({ status_code: 200 }),
    },
    triggers: [
      { function_id: "slow", config: { api_path: "/slow" } },
      { function_id: "fast", config: { api_path: "/fast" } },
    ],
    config: { concurrency_request_limit: 1, default_timeout: 60_000 },
  });
  const held = Promise.resolve(app.request("/slow"));
  await started.opened;
  const client = new AbortController();
  const waiting = Promise.resolve(app.request("/fast", { signal: client.signal }));
  await until(() => limiter.waiting === 1, "one request waiting");
  client.abort();
  const gone = await waiting;
  assert.equal(gone.status, 499);
  assert.equal((await errorOf(gone)).code, "CLIENT_CLOSED");
  assert.equal(limiter.waiting, 0);
  assert.deepEqual(calls.map((c) => c.functionId), ["slow"]);
  // The slot still belongs to the request in progress; it is handed on when that one ends.
  assert.equal(limiter.active, 1);
  finish.open();
  assert.equal((await held).status, 200);
  assert.equal(limiter.active, 0);
});

Deno.test("app answers HEAD with the Content-Length the GET reply would have, and no body", async () => {
  const { app } = testApp({
    functions: { f: () => ({ status_code: 200, body: { name: "café" } }) },
    triggers: [{ function_id: "f", config: { api_path: "/x" } }],
  });
  const cases = [
    ["/x", 200, '{"name":"café"}'],
    [
      "/nowhere",
      404,
      '{"error":{"code":"NOT_FOUND","message":"No route matches \\"HEAD /nowhere\\""}}',
    ],
  ] as const;
  for (const [path, status, getBody] of cases) {
    const response = await app.request(path, { method: "HEAD" });
    assert.equal(response.status, status, path);
    assert.equal(
      response.headers.get("content-length"),
      String(new TextEncoder().encode(getBody).byteLength),
      path,
    );
    assert.equal(response.headers.get("content-type"), "application/json", path);
    assert.equal(await response.text(), "", path);
  }
});

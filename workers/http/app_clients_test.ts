/**
 * What the app answers clients that misbehave or leave: bodies that break
 * off, `HEAD` requests.
 */
import assert from "node:assert/strict";
import { errorOf, postStream, testApp } from "./_testing.ts";

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

Deno.test("app refuses a JSON body that is not UTF-8 with 400, and reads one with a BOM", async () => {
  const { app, calls } = testApp({
    functions: {
      f: (payload) => ({ status_code: 200, body: (payload as { body: unknown }).body }),
    },
    triggers: [{ function_id: "f", config: { api_path: "/x", http_method: "POST" } }],
  });
  const post = (bytes: number[], type = "application/json") =>
    app.request("/x", {
      method: "POST",
      body: new Uint8Array(bytes),
      headers: { "content-type": type },
    });
  const quoted = (s: string) => [...new TextEncoder().encode(s)];
  const latin1 = await post([...quoted('{"a":"caf'), 0xe9, ...quoted('"}')]);
  assert.equal(latin1.status, 400);
  assert.deepEqual(await errorOf(latin1), {
    code: "INVALID_BODY",
    message: "Request body is not valid UTF-8 JSON",
  });
  assert.equal(calls.length, 0);
  const declared = await post(
    [...quoted('{"a":"caf'), 0xe9, ...quoted('"}')],
    "application/json; charset=latin1",
  );
  assert.deepEqual(await declared.json(), { a: "café" });
  const bom = await post([0xef, 0xbb, 0xbf, ...quoted('{"a":1}')]);
  assert.deepEqual(await bom.json(), { a: 1 });
});

Deno.test("app answers HEAD with the GET reply's real Content-Length, not one the handler wrote", async () => {
  const { app } = testApp({
    functions: {
      f: () => ({
        status_code: 200,
        headers: { "content-type": "text/plain", "content-length": "999" },
        body: "abc",
      }),
    },
    triggers: [{ function_id: "f", config: { api_path: "/x" } }],
  });
  const head = await app.request("/x", { method: "HEAD" });
  assert.equal(head.headers.get("content-length"), "3");
  assert.equal(await head.text(), "");
  const get = await app.request("/x");
  assert.equal(await get.text(), "abc");
  assert.notEqual(get.headers.get("content-length"), "999");
});

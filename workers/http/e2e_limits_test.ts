/**
 * engine-http's concurrency limit and CORS over real sockets.
 */
import assert from "node:assert/strict";
import { until } from "./_testing.ts";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";
import type { HttpWorkerStatus } from "./mod.ts";

Deno.test("engine-http queues requests over the limit, refuses past four times it, and reports the queue", async () => {
  const stack = await startStack({ concurrency_request_limit: 1, default_timeout: 1000 });
  const worker = await Fixture.start("api_worker", stack.engine);
  const status = () => stack.engine.describeBuiltin("engine-http") as HttpWorkerStatus;
  try {
    const held = Array.from({ length: 5 }, () => fetchJson(stack.base, "/slow"));
    await until(
      () => status().in_flight === 1 && status().waiting === 4,
      "one request in flight and four waiting",
    );
    const refused = await fetchJson(stack.base, "/users/1");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((refused.body as { error: { code: string } }).error.code, "OVERLOADED");
    const replies = await Promise.all(held);
    assert.deepEqual(replies.map((r) => r.status), [504, 504, 504, 504, 504]);
    // Each names its step: the call, or the wait for the slot (which of them depends on when
    // each waiter's time runs out against the slot being handed on).
    for (const r of replies) {
      const error = (r.body as { error: { code: string; message: string } }).error;
      assert.equal(error.code, "REQUEST_TIMEOUT");
      assert.match(
        error.message,
        /^Request timed out: (function "h::slow" did not answer|before function "h::slow" was called|waiting for a free request slot \(concurrency_request_limit 1\))$/,
      );
    }
    assert.equal(status().in_flight, 0);
    assert.equal(status().waiting, 0);
    assert.equal((await fetchJson(stack.base, "/users/1")).status, 200);
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

Deno.test("engine-http answers preflights and adds CORS headers to every reply", async () => {
  const stack = await startStack({
    cors: { allowed_origins: ["localhost"], allowed_methods: ["GET", "POST"] },
  });
  const worker = await Fixture.start("api_worker", stack.engine);
  const origin = "http://localhost:5173";
  try {
    const preflight = await fetch(`${stack.base}/users/1`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), origin);
    assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, POST");
    assert.equal(preflight.headers.get("access-control-allow-headers"), "x-api-key");
    for (
      const [path, expected] of [["/users/1", 200], ["/nowhere", 404], ["/fails", 500]] as const
    ) {
      const r = await fetchJson(stack.base, path, { headers: { origin } });
      assert.equal(r.status, expected);
      assert.equal(r.headers.get("access-control-allow-origin"), origin, path);
    }
    const stranger = await fetchJson(stack.base, "/users/1", {
      headers: { origin: "https://evil.test" },
    });
    assert.equal(stranger.status, 200);
    assert.equal(stranger.headers.get("access-control-allow-origin"), null);
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

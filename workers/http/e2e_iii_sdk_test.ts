/**
 * A handler and a middleware written with the published npm `iii-sdk@0.22.1`
 * work against engine-http unchanged.
 */
import assert from "node:assert/strict";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";

Deno.test("engine-http serves handlers and middleware written with npm iii-sdk@0.22.1", async () => {
  const stack = await startStack();
  const worker = await Fixture.start("iii_sdk_worker", stack.engine);
  try {
    const greet = await fetchJson(stack.base, "/iii/greet/ada", {
      method: "POST",
      body: JSON.stringify({ greeting: "Hi" }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(greet.status, 200);
    assert.deepEqual(greet.body, { message: "Hi, ada!" });

    const denied = await fetchJson(stack.base, "/iii/secret");
    assert.equal(denied.status, 401);
    assert.deepEqual(denied.body, { error: "Invalid API key" });

    const allowed = await fetchJson(stack.base, "/iii/secret", {
      headers: { "x-api-key": "let-me-in" },
    });
    assert.equal(allowed.status, 200);
    assert.deepEqual(allowed.body, { secret: 42 });
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

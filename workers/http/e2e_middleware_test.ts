/**
 * engine-http middleware and conditions end to end, with a real worker process.
 */
import assert from "node:assert/strict";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";

const API_KEY = "secret-key";

Deno.test("engine-http runs middleware and conditions from a worker process", async (t) => {
  const stack = await startStack({
    middleware_timeout: 300,
    middleware: [
      { function_id: "mw::third", priority: 10 },
      { function_id: "mw::first", priority: -5 },
      { function_id: "auth::api_key" },
      { function_id: "mw::second", priority: 0 },
    ],
  });
  const worker = await Fixture.start("api_worker", stack.engine, { API_KEY });
  const withKey = { headers: { "x-api-key": API_KEY } };
  const get = (path: string, init: RequestInit = withKey) => fetchJson(stack.base, path, init);
  try {
    await t.step("an API-key middleware answers 401 without the right x-api-key", async () => {
      for (const headers of [{}, { "x-api-key": "wrong" }]) {
        const r = await get("/users/1", { headers });
        assert.equal(r.status, 401);
        assert.deepEqual(r.body, { error: "Invalid API key" });
      }
    });

    await t.step(
      "global middleware runs by priority and its context reaches the handler",
      async () => {
        const r = await get("/users/1");
        assert.equal(r.status, 200);
        assert.deepEqual((r.body as { context: unknown }).context, {
          order: ["first", "second", "third"],
          user: "ada",
        });
      },
    );

    await t.step("a condition on the body gives 422 when it fails", async () => {
      const post = (tier: string) =>
        get("/orders", {
          method: "POST",
          body: JSON.stringify({ tier }),
          headers: { ...withKey.headers, "content-type": "application/json" },
        });
      const refused = await post("silver");
      assert.equal(refused.status, 422);
      // `skipped: true` beside the error, as the reference's 422 says it (clients test it).
      assert.deepEqual(refused.body, {
        error: { code: "CONDITION_NOT_MET", message: "Request condition not met" },
        skipped: true,
      });
      const accepted = await post("gold");
      assert.equal(accepted.status, 201);
      assert.deepEqual((accepted.body as { created: unknown }).created, { tier: "gold" });
    });

    await t.step(
      "a middleware that throws gives 500 with an error_id written to the log",
      async () => {
        const r = await get("/mw/throws");
        assert.equal(r.status, 500);
        const error =
          (r.body as { error: { code: string; message: string; error_id: string } }).error;
        assert.equal(error.code, "invocation_failed");
        assert.equal(error.message, "middleware exploded");
        const logged = stack.engine.logs.query({ level: "error", text: error.error_id });
        assert.equal(logged.length, 1);
        assert.equal((logged[0]!.data as { function_id: string }).function_id, "mw::throws");
      },
    );

    await t.step("a middleware that hangs gives 504 after middleware_timeout", async () => {
      const r = await get("/mw/hangs");
      assert.equal(r.status, 504);
      assert.deepEqual(r.body, {
        error: {
          code: "MIDDLEWARE_TIMEOUT",
          message: 'Middleware "mw::hangs" did not answer within 300 ms',
        },
      });
    });

    await t.step(
      "a middleware that returns garbage is logged and treated as continue",
      async () => {
        const r = await get("/mw/garbage");
        assert.equal(r.status, 200);
        assert.equal((r.body as { reached: boolean }).reached, true);
        const warned = stack.engine.logs.query({ level: "warn", text: "mw::garbage" });
        assert.equal(warned.length, 1);
        assert.equal(
          warned[0]!.message,
          'Middleware "mw::garbage" returned an unknown action "explode": treated as continue',
        );
      },
    );
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

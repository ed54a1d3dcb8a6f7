import assert from "node:assert/strict";
import { startHarness } from "./_testing.ts";

Deno.test("GET /api/functions/info answers engine::functions::info for one function", async (t) => {
  const h = await startHarness();
  try {
    await t.step("a function with its triggers", async () => {
      const res = await h.app.request("/api/functions/info?id=probe::hello");
      assert.equal(res.status, 200);
      const info = await res.json();
      assert.equal(info.function_id, "probe::hello");
      assert.deepEqual(
        info.registered_triggers.map((r: { trigger_type: string; config: { api_path: string } }) =>
          `${r.trigger_type} ${r.config.api_path}`
        ),
        ["http /hello"],
      );
    });
    await t.step("its description and schemas as registered", async () => {
      const schema = { type: "object", properties: { a: { type: "string" } } };
      h.api.registerFunction("probe::typed", () => null, {
        description: "Typed",
        request_format: schema,
      });
      const info = await (await h.app.request("/api/functions/info?id=probe::typed")).json();
      assert.deepEqual([info.description, info.request_format, info.response_format], [
        "Typed",
        schema,
        null,
      ]);
    });
    const refusals: [query: string, status: number, code: string][] = [
      ["", 400, "invalid_request"],
      ["?id=", 400, "invalid_request"],
      ["?id=nope::none", 404, "NOT_FOUND"],
    ];
    for (const [query, status, code] of refusals) {
      await t.step(`"${query}" is a ${status}`, async () => {
        const res = await h.app.request(`/api/functions/info${query}`);
        assert.equal(res.status, status);
        assert.equal((await res.json()).error.code, code);
      });
    }
  } finally {
    await h.stop();
  }
});

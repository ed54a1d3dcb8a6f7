import assert from "node:assert/strict";
import type { TriggerBinding } from "../../engine/api.ts";
import { httpTriggerProvider, LiveRoutes, routeOf } from "./triggers.ts";

const binding = (id: string, apiPath: string, functionId = "bench::http"): TriggerBinding => ({
  id,
  type: "http",
  functionId,
  workerId: "w",
  config: { api_path: apiPath, http_method: "POST" },
});

Deno.test("httpTriggerProvider() takes 10,000 routes at a cost per route that does not grow with the table", () => {
  const routes = new LiveRoutes();
  const provider = httpTriggerProvider(routes);
  const started = performance.now();
  for (let i = 0; i < 10_000; i++) provider.registerTrigger(binding(`t${i}`, `/bench/r${i}/:id`));
  // Each check looks at the routes under the new route's prefix only, and still sees them all.
  assert.throws(
    () => provider.registerTrigger(binding("late", "/bench/r9999/:other/x")),
    /parameter ":other" clashes with ":id" of route "POST \/bench\/r9999\/:id"/,
  );
  assert.throws(
    () => provider.registerTrigger(binding("late", "/bench/r0/:id", "other::fn")),
    /already bound to function "bench::http" by trigger "t0"/,
  );
  assert.equal(routes.table.size, 10_000);
  const match = routes.matcher().match("POST", "/bench/r9999/7");
  assert.equal(match.kind === "found" && match.route.triggerId, "t9999");
  for (let i = 0; i < 10_000; i++) provider.unregisterTrigger(binding(`t${i}`, ""));
  const elapsed = performance.now() - started;
  assert.equal(routes.table.size, 0);
  assert.equal(routes.matcher().match("POST", "/bench/r9999/7").kind, "not_found");
  // ~0.1 s here; comparing with every live route took ~13 s to add them and ~10 s to remove them.
  assert.ok(elapsed < 5_000, `10,000 routes added and removed in ${elapsed.toFixed(0)} ms`);
});

Deno.test("routeOf() refuses a condition or middleware that is not a function id", () => {
  const withConfig = (config: Record<string, unknown>): TriggerBinding => ({
    id: "t",
    type: "http",
    functionId: "api::h",
    workerId: "w",
    config: { api_path: "/x", ...config },
  });
  const cases: [Record<string, unknown>, string][] = [
    [
      { condition_function_id: "bad id" },
      'Invalid http trigger config: condition_function_id: Invalid function id "bad id": ' +
      "a function id is two or more parts separated by \"::\", each part letters, digits, '-' and '_'",
    ],
    [
      { condition_function_id: 5 },
      "Invalid http trigger config: condition_function_id must be a function id, got 5",
    ],
    [
      { middleware_function_ids: ["mw::ok", "auth"] },
      'Invalid http trigger config: middleware_function_ids[1]: Invalid function id "auth": ' +
      "a function id is two or more parts separated by \"::\", each part letters, digits, '-' and '_'",
    ],
    [
      { middleware_function_ids: [""] },
      'Invalid http trigger config: middleware_function_ids[0] must be a function id, got ""',
    ],
  ];
  for (const [config, message] of cases) {
    assert.throws(() => routeOf(withConfig(config)), { message }, JSON.stringify(config));
  }
  const route = routeOf(
    withConfig({ condition_function_id: "c::ok", middleware_function_ids: ["m::a", "m::b"] }),
  );
  assert.equal(route.conditionFunctionId, "c::ok");
  assert.deepEqual(route.middlewareFunctionIds, ["m::a", "m::b"]);
});

import assert from "node:assert/strict";
import { parsePattern, type Route, RouteTable } from "./routes.ts";

function route(
  method: Route["method"],
  apiPath: string,
  functionId: string,
  triggerId: string,
): Route {
  const parsed = parsePattern(apiPath);
  if (parsed.kind !== "ok") throw new Error(parsed.reason);
  return {
    ...parsed.value,
    method,
    functionId,
    triggerId,
    workerId: "w",
    middlewareFunctionIds: [],
  };
}

/** `routes` added to a new table, each of them accepted. */
function tableOf(...routes: Route[]): RouteTable {
  const table = new RouteTable();
  for (const r of routes) changed(table.add(r));
  return table;
}

function changed(outcome: ReturnType<RouteTable["add"]>): void {
  assert.equal(outcome.kind, "changed", outcome.kind === "refused" ? outcome.reason : "");
}

Deno.test("parsePattern() accepts literals and :params and adds a missing leading slash", () => {
  const cases: [string, string, string[]][] = [
    ["/", "/", []],
    ["users", "/users", ["users"]],
    ["/users/:id", "/users/:id", ["users", ":id"]],
    ["users/:id/posts/:post_id", "/users/:id/posts/:post_id", [
      "users",
      ":id",
      "posts",
      ":post_id",
    ]],
    ["/users/", "/users/", ["users", ""]],
    ["/v1/items:batch", "/v1/items:batch", ["v1", "items:batch"]],
    ["/files/a.json", "/files/a.json", ["files", "a.json"]],
  ];
  for (const [input, pattern, segments] of cases) {
    const outcome = parsePattern(input);
    assert.equal(outcome.kind, "ok", input);
    if (outcome.kind !== "ok") continue;
    assert.equal(outcome.value.pattern, pattern);
    assert.deepEqual(
      outcome.value.segments.map((s) => s.kind === "param" ? `:${s.name}` : s.value),
      segments,
      input,
    );
  }
});

Deno.test("parsePattern() refuses what it cannot route, saying why", () => {
  const cases: [string, RegExp][] = [
    ["", /must not be empty/],
    ["/a//b", /empty segment/],
    ["/files/*", /unsupported segment "\*"/],
    ["/users/{id}", /unsupported segment "\{id\}"/],
    ["/users/:id?", /invalid parameter ":id\?"/],
    ["/users/:", /invalid parameter ":"/],
    ["/a/:id/b/:id", /names the parameter ":id" twice/],
    [
      "/a b",
      /segment "a b" with characters a URL path carries percent-encoded: write it as "a%20b"/,
    ],
    ["/café/x", /segment "café" .* write it as "caf%C3%A9" \(requests are matched/],
  ];
  for (const [input, reason] of cases) {
    const outcome = parsePattern(input);
    assert.equal(outcome.kind, "invalid", input);
    if (outcome.kind === "invalid") assert.match(outcome.reason, reason, input);
  }
});

Deno.test("RouteTable.add() refuses a route bound to another function and changes nothing", () => {
  const table = tableOf(route("GET", "/users/:id", "users::get", "t1"));
  const outcome = table.add(route("GET", "users/:id", "users::other", "t2"));
  assert.equal(outcome.kind, "refused");
  if (outcome.kind === "refused") {
    assert.equal(
      outcome.reason,
      'Cannot bind route "GET /users/:id" to function "users::other": ' +
        'already bound to function "users::get" by trigger "t1"',
    );
  }
  assert.equal(table.size, 1);
  assert.equal(table.routes()[0]!.functionId, "users::get");
});

Deno.test("RouteTable.add() refuses parameter names that clash at the same position, any method", () => {
  const table = tableOf(route("GET", "/users/:id", "users::get", "t1"));
  const cases: [Route, RegExp][] = [
    [
      route("GET", "/users/:userId", "users::get", "t2"),
      /parameter ":userId" clashes with ":id" of route "GET \/users\/:id"/,
    ],
    [route("POST", "/users/:userId", "users::update", "t3"), /"POST \/users\/:userId"/],
    [route("GET", "/users/:uid/posts", "posts::list", "t4"), /":uid" clashes with ":id"/],
  ];
  for (const [candidate, reason] of cases) {
    const outcome = table.add(candidate);
    assert.equal(outcome.kind, "refused", candidate.pattern);
    if (outcome.kind === "refused") assert.match(outcome.reason, reason);
  }
});

Deno.test("RouteTable.add() accepts literals beside params and same names under other methods", () => {
  const table = tableOf(
    route("GET", "/users/:id", "users::get", "t1"),
    route("GET", "/users/me", "users::me", "t2"),
    route("DELETE", "/users/:id", "users::delete", "t3"),
    route("GET", "/users/:id/posts/:post", "posts::get", "t4"),
    route("GET", "/orgs/:org", "orgs::get", "t5"),
  );
  assert.equal(table.size, 5);
});

Deno.test("RouteTable keeps a route bound by two triggers of the same function until both go", () => {
  const table = tableOf(route("GET", "/a", "a::get", "old"), route("GET", "/a", "a::get", "new"));
  assert.equal(table.size, 1);
  assert.equal(table.routes()[0]!.triggerId, "new");
  changed(table.remove("new"));
  assert.equal(table.routes()[0]!.triggerId, "old");
  changed(table.remove("old"));
  assert.equal(table.size, 0);
  assert.equal(table.remove("old").kind, "unchanged");
});

Deno.test("RouteTable.add() with a known trigger id replaces that trigger's route", () => {
  const table = tableOf(route("GET", "/a", "a::get", "t1"), route("POST", "/b", "a::get", "t1"));
  assert.deepEqual(table.routes().map((r) => `${r.method} ${r.pattern}`), ["POST /b"]);
  assert.equal(table.get("t1")?.pattern, "/b");
});

Deno.test("RouteTable.add() refusing a replacement keeps the trigger's old route", () => {
  const table = tableOf(route("GET", "/a", "a::get", "t1"), route("GET", "/b", "b::get", "t2"));
  const outcome = table.add(route("GET", "/b", "a::get", "t1"));
  assert.equal(outcome.kind, "refused");
  assert.deepEqual(table.routes().map((r) => r.pattern), ["/a", "/b"]);
});

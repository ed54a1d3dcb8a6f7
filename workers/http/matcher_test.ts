import assert from "node:assert/strict";
import { buildMatcher, type MatchOutcome } from "./matcher.ts";
import { parsePattern, type Route, RouteTable } from "./routes.ts";

function table(specs: [Route["method"], string, string][]): RouteTable {
  const t = new RouteTable();
  specs.forEach(([method, apiPath, functionId], i) => {
    const parsed = parsePattern(apiPath);
    if (parsed.kind !== "ok") throw new Error(parsed.reason);
    const outcome = t.add({
      ...parsed.value,
      method,
      functionId,
      triggerId: `t${i}`,
      workerId: "w",
      middlewareFunctionIds: [],
    });
    if (outcome.kind !== "changed") throw new Error(`${apiPath}: ${outcome.kind}`);
  });
  return t;
}

function summary(outcome: MatchOutcome): string {
  switch (outcome.kind) {
    case "found":
      return `${outcome.route.functionId} ${JSON.stringify(outcome.params)}`;
    case "method_not_allowed":
      return `405 ${outcome.allow.join(",")}`;
    case "not_found":
      return "404";
  }
}

const ROUTES: [Route["method"], string, string][] = [
  ["GET", "/users/:id", "users::get"],
  ["POST", "/users/:id", "users::update"],
  ["GET", "/users/me", "users::me"],
  ["GET", "/a/:x/c", "x_c"],
  ["GET", "/a/b/:y", "b_y"],
  ["GET", "/", "root"],
  ["GET", "/trailing/", "trailing"],
  ["HEAD", "/head-only", "head"],
  ["OPTIONS", "/opts", "opts"],
  ["GET", "/caf%C3%A9", "cafe"],
];

const CASES: [string, string, string][] = [
  ["GET", "/users/me", "users::me {}"],
  ["GET", "/users/42", 'users::get {"id":"42"}'],
  ["POST", "/users/me", 'users::update {"id":"me"}'],
  ["GET", "/a/b/c", 'b_y {"y":"c"}'],
  ["GET", "/a/z/c", 'x_c {"x":"z"}'],
  ["GET", "/users/hello%20world", 'users::get {"id":"hello world"}'],
  ["GET", "/users/100%", 'users::get {"id":"100%"}'],
  // A stray "%" (a browser sends a typed "100% cotton" as 100%%20cotton) leaves the rest decoded.
  ["GET", "/users/100%%20cotton", 'users::get {"id":"100% cotton"}'],
  ["GET", "/users/a%20b%", 'users::get {"id":"a b%"}'],
  ["GET", "/users/%ZZ%C3%A9", 'users::get {"id":"%ZZé"}'],
  // Bytes that are not UTF-8 stay escaped; the escapes around them are decoded.
  ["GET", "/users/%E0%A4%20x", 'users::get {"id":"%E0%A4 x"}'],
  ["GET", "/users/caf%C3%A9%FF", 'users::get {"id":"café%FF"}'],
  // An escaped unreserved character is that character: the literal route wins.
  ["GET", "/users/%6De", "users::me {}"],
  ["GET", "/users/%6d%65", "users::me {}"],
  ["GET", "/users/a%2Fb", 'users::get {"id":"a/b"}'],
  ["GET", "/users/%25me", 'users::get {"id":"%me"}'],
  ["GET", "/caf%c3%a9", "cafe {}"],
  ["GET", "/", "root {}"],
  ["GET", "/trailing/", "trailing {}"],
  ["GET", "/trailing", "404"],
  ["GET", "/users/42/", "404"],
  ["GET", "/nope", "404"],
  ["HEAD", "/users/42", 'users::get {"id":"42"}'],
  ["HEAD", "/head-only", "head {}"],
  ["DELETE", "/users/42", "405 GET,POST,HEAD"],
  ["DELETE", "/users/me", "405 GET,POST,HEAD"],
  ["GET", "/head-only", "405 HEAD"],
  ["OPTIONS", "/opts", "opts {}"],
  ["OPTIONS", "/users/1", "405 GET,POST,HEAD"],
];

Deno.test("Matcher.match() prefers a literal segment over :param, in any registration order", () => {
  for (const order of [ROUTES, [...ROUTES].reverse()]) {
    const matcher = buildMatcher(table(order));
    for (const [method, path, expected] of CASES) {
      assert.equal(summary(matcher.match(method, path)), expected, `${method} ${path}`);
    }
  }
});

Deno.test("Matcher.match() reaches a route written with lower-case or needless escapes", () => {
  // Requests are matched in the escapes' normal form; a route written otherwise was unreachable.
  const matcher = buildMatcher(table([
    ["GET", "/caf%c3%a9", "cafe"],
    ["GET", "/%7Euser/%6De", "me"],
    ["GET", "/a%2fb/:id", "slash"],
  ]));
  const cases = [
    ["/caf%C3%A9", "cafe {}"],
    ["/caf%c3%a9", "cafe {}"],
    ["/~user/me", "me {}"],
    ["/%7euser/%6de", "me {}"],
    ["/a%2Fb/7", 'slash {"id":"7"}'],
    ["/a/b/7", "404"],
  ] as const;
  for (const [path, expected] of cases) {
    assert.equal(summary(matcher.match("GET", path)), expected, path);
  }
  assert.deepEqual(
    matcher.routes.map((r) => r.pattern),
    ["/caf%C3%A9", "/~user/me", "/a%2Fb/:id"],
  );
});

Deno.test("Matcher.match() on an empty table finds nothing", () => {
  assert.equal(summary(buildMatcher(new RouteTable()).match("GET", "/")), "404");
});

Deno.test("buildMatcher() leaves the previous matcher serving its own table", () => {
  const routes = table([["GET", "/a", "a"]]);
  const old = buildMatcher(routes);
  assert.equal(summary(old.match("GET", "/a")), "a {}");
  assert.equal(routes.remove("t0").kind, "changed");
  assert.equal(summary(buildMatcher(routes).match("GET", "/a")), "404");
  assert.equal(summary(old.match("GET", "/a")), "a {}");
});

Deno.test("Matcher.match() finds one route among a thousand", () => {
  const specs: [Route["method"], string, string][] = [];
  for (let i = 0; i < 1000; i++) specs.push(["POST", `/r${i}/items/:id`, `fn::${i}`]);
  const matcher = buildMatcher(table(specs));
  assert.equal(summary(matcher.match("POST", "/r999/items/7")), 'fn::999 {"id":"7"}');
  assert.equal(summary(matcher.match("POST", "/r0/items/7")), 'fn::0 {"id":"7"}');
  assert.equal(summary(matcher.match("GET", "/r5/items/7")), "405 POST");
});

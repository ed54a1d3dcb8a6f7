import assert from "node:assert/strict";
import { DEFAULT_CONFIG, parseHttpConfig } from "./config.ts";

Deno.test("parseHttpConfig() fills the defaults", () => {
  assert.deepEqual(parseHttpConfig(undefined), {
    port: 3111,
    host: "127.0.0.1",
    default_timeout: 30_000,
    concurrency_request_limit: 1024,
    middleware: [],
    body_limit: 1024 * 1024,
    middleware_timeout: 5000,
  });
});

Deno.test("parseHttpConfig() accepts the reference configuration", () => {
  const config = parseHttpConfig(DEFAULT_CONFIG);
  assert.deepEqual(config.cors, {
    allowed_origins: ["localhost"],
    allowed_methods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
  });
});

Deno.test("parseHttpConfig() normalizes methods, origins and middleware entries", () => {
  const config = parseHttpConfig({
    cors: {
      allowed_origins: ["*", "https://Example.com:443", "http://a.test:8080/"],
      allowed_methods: ["get", "Patch"],
    },
    middleware: [{ function_id: "auth::check" }, {
      function_id: "log::request",
      priority: -1,
      phase: "preHandler",
    }],
  });
  assert.deepEqual(config.cors, {
    allowed_origins: ["*", "https://example.com", "http://a.test:8080"],
    allowed_methods: ["GET", "PATCH"],
  });
  assert.deepEqual(config.middleware, [
    { function_id: "auth::check", phase: "preHandler", priority: 0 },
    { function_id: "log::request", phase: "preHandler", priority: -1 },
  ]);
});

Deno.test("parseHttpConfig() names the field of every mistake", () => {
  const cases: [unknown, string, RegExp][] = [
    [{ port: 70000 }, "port", /65535/],
    [{ port: "80" }, "port", /number/],
    [{ host: "" }, "host", /1/],
    [{ default_timeout: 0 }, "default_timeout", /0/],
    [{ default_timeout: 1.5 }, "default_timeout", /int/],
    [{ concurrency_request_limit: 0 }, "concurrency_request_limit", /1/],
    [{ body_limit: -1 }, "body_limit", /0/],
    [{ middleware_timeout: "5s" }, "middleware_timeout", /number/],
    [
      { cors: { allowed_origins: ["https://a.test/path"] } },
      "cors.allowed_origins.0",
      /Invalid origin "https:\/\/a.test\/path"/,
    ],
    [
      { cors: { allowed_methods: ["FETCH"] } },
      "cors.allowed_methods.0",
      /Unsupported HTTP method "FETCH"/,
    ],
    [{ cors: { allowed_origin: [] } }, "cors", /allowed_origin/],
    [
      { cors: { allowed_origins: ["localhost", "*"], allow_credentials: true } },
      "cors.allow_credentials",
      /allow_credentials cannot be used with allowed_origins "\*".*list the origins instead/,
    ],
    [{ cors: { allow_credentials: "yes" } }, "cors.allow_credentials", /boolean/],
    [{ middleware: [{ function_id: "a::b", priorty: 1 }] }, "middleware.0", /priorty/],
    [
      { middleware: [{ function_id: "a::b", phase: "onRequest" }] },
      "middleware.0.phase",
      /preHandler/,
    ],
    [{ middleware: [{ priority: 1 }] }, "middleware.0.function_id", /string/],
    [
      { middleware: [{ function_id: "auth check" }] },
      "middleware.0.function_id",
      /Invalid function id "auth check": a function id is two or more parts/,
    ],
    [{ trust_proxy: true }, "", /trust_proxy/],
  ];
  for (const [raw, path, message] of cases) {
    const issues = issuesOf(raw);
    assert.equal(issues.length, 1, JSON.stringify(raw));
    const issue = issues[0]!;
    assert.equal(issue.path.join("."), path, JSON.stringify(raw));
    assert.match(`${issue.message} ${issue.keys?.join(",") ?? ""}`, message, JSON.stringify(raw));
  }
});

function issuesOf(raw: unknown): { path: PropertyKey[]; message: string; keys?: string[] }[] {
  try {
    parseHttpConfig(raw);
  } catch (e) {
    return (e as { issues: { path: PropertyKey[]; message: string; keys?: string[] }[] }).issues;
  }
  throw new Error(`Expected ${JSON.stringify(raw)} to be refused`);
}

import assert from "node:assert/strict";
import { Cors, hostnameOf, isPreflight } from "./cors.ts";
import { parseHttpConfig } from "./config.ts";

function cors(origins: string[], methods: string[] = [], credentials?: boolean): Cors {
  return new Cors(
    parseHttpConfig({
      cors: {
        allowed_origins: origins,
        allowed_methods: methods,
        ...(credentials === undefined ? {} : { allow_credentials: credentials }),
      },
    }).cors!,
  );
}

Deno.test("Cors.allows() matches exact origins, bare hosts on any scheme and port, and *", () => {
  const cases: [string[], string, boolean][] = [
    [["localhost"], "http://localhost:5173", true],
    [["localhost"], "https://localhost", true],
    [["localhost"], "http://localhost.evil.test", false],
    [["localhost"], "http://127.0.0.1:3000", false],
    [["https://app.test"], "https://app.test", true],
    [["https://app.test"], "http://app.test", false],
    [["https://app.test"], "https://app.test:8443", false],
    [["https://app.test:443"], "https://app.test", true],
    [["*"], "https://anything.test", true],
    [[], "http://localhost", false],
    [["http://[::1]:8080"], "http://[::1]:8080", true],
  ];
  for (const [origins, origin, expected] of cases) {
    assert.equal(cors(origins).allows(origin), expected, `${origins} vs ${origin}`);
  }
});

Deno.test("Cors.decorate() echoes an allowed origin, says * for any, and nothing to others", () => {
  const cases: [string[], string | null, Record<string, string>][] = [
    [["localhost"], "http://localhost:5173", {
      "access-control-allow-origin": "http://localhost:5173",
      vary: "Origin",
    }],
    [["localhost"], "http://evil.test", { vary: "Origin" }],
    [["*"], "http://evil.test", { "access-control-allow-origin": "*" }],
    // The reply depends on Origin even without one: a cache must not hand it to a browser.
    [["localhost"], null, { vary: "Origin" }],
    [["*"], null, {}],
  ];
  for (const [origins, origin, expected] of cases) {
    const headers = new Headers();
    cors(origins).decorate(headers, origin);
    assert.deepEqual(Object.fromEntries(headers), expected, `${origins} vs ${origin}`);
  }
});

Deno.test("Cors.decorate() adds Origin to a function's own Vary once", () => {
  const cases: [string, string][] = [
    ["Accept-Encoding", "Accept-Encoding, Origin"],
    ["origin", "origin"],
    ["Accept, Origin", "Accept, Origin"],
    ["*", "*"],
  ];
  for (const [own, expected] of cases) {
    for (const origin of ["http://localhost", null]) {
      const headers = new Headers({ vary: own });
      cors(["localhost"]).decorate(headers, origin);
      assert.equal(headers.get("vary"), expected, `${own} with origin ${origin}`);
    }
  }
});

Deno.test("Cors.decorate() leaves a function's own allow-origin alone", () => {
  const headers = new Headers({ "access-control-allow-origin": "https://partner.test" });
  cors(["localhost"]).decorate(headers, "http://localhost");
  assert.deepEqual(Object.fromEntries(headers), {
    "access-control-allow-origin": "https://partner.test",
  });
});

Deno.test("Cors.preflight() answers 204 with the allowed methods and the asked headers", () => {
  const request = new Request("http://x/a", {
    method: "OPTIONS",
    headers: {
      origin: "http://localhost:5173",
      "access-control-request-method": "PUT",
      "access-control-request-headers": "x-api-key, content-type",
    },
  });
  assert.ok(isPreflight(request));
  const response = cors(["localhost"], ["GET", "put"]).preflight(request);
  assert.equal(response.status, 204);
  assert.equal(response.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.equal(response.headers.get("access-control-allow-methods"), "GET, PUT");
  assert.equal(response.headers.get("access-control-allow-headers"), "x-api-key, content-type");
  const denied = cors(["https://app.test"]).preflight(request);
  assert.equal(denied.status, 204);
  assert.equal(denied.headers.get("access-control-allow-origin"), null);
  assert.equal(denied.headers.get("access-control-allow-methods"), null);
});

Deno.test("isPreflight() needs OPTIONS, Origin and Access-Control-Request-Method", () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ["OPTIONS", { origin: "http://a", "access-control-request-method": "GET" }, true],
    ["OPTIONS", { origin: "http://a" }, false],
    ["OPTIONS", { "access-control-request-method": "GET" }, false],
    ["GET", { origin: "http://a", "access-control-request-method": "GET" }, false],
  ];
  for (const [method, headers, expected] of cases) {
    assert.equal(
      isPreflight(new Request("http://x/", { method, headers })),
      expected,
      JSON.stringify(headers),
    );
  }
});

Deno.test("hostnameOf() reads the host of an origin", () => {
  assert.equal(hostnameOf("http://LocalHost:80"), "localhost");
  assert.equal(hostnameOf("https://[::1]:8443"), "[::1]");
  assert.equal(hostnameOf("null"), undefined);
});

Deno.test("Cors with allow_credentials tells an allowed origin, and only it, that it may send cookies", () => {
  const preflightFrom = (origin: string) =>
    new Request("http://x/a", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST" },
    });
  const cases: [string[], boolean | undefined, string, string | null, string | null][] = [
    // origins, allow_credentials, Origin, allow-origin, allow-credentials
    [["localhost"], true, "http://localhost:5173", "http://localhost:5173", "true"],
    [["https://app.test"], true, "https://app.test", "https://app.test", "true"],
    [["localhost"], true, "http://evil.test", null, null],
    [["localhost"], false, "http://localhost:5173", "http://localhost:5173", null],
    [["localhost"], undefined, "http://localhost:5173", "http://localhost:5173", null],
    [["*"], undefined, "http://evil.test", "*", null],
  ];
  for (const [origins, credentials, origin, allowOrigin, allowCredentials] of cases) {
    const what = `${origins} ${credentials} ${origin}`;
    const c = cors(origins, [], credentials);
    const headers = new Headers();
    c.decorate(headers, origin);
    const preflight = c.preflight(preflightFrom(origin)).headers;
    for (const h of [headers, preflight]) {
      assert.equal(h.get("access-control-allow-origin"), allowOrigin, what);
      assert.equal(h.get("access-control-allow-credentials"), allowCredentials, what);
    }
  }
});

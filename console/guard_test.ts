import assert from "node:assert/strict";
import { Hono } from "hono";
import { refuseOtherSites } from "./guard.ts";

function app(checkHost: boolean): Hono {
  const a = new Hono();
  a.use("*", refuseOtherSites({ checkHost }));
  a.all("*", (c) => c.text("through"));
  return a;
}

Deno.test("refuseOtherSites() lets programs and the console's own pages through, not other sites", async () => {
  const cases: [string, string, Record<string, string>, boolean, number][] = [
    ["curl POST", "POST", { host: "127.0.0.1:3113" }, true, 200],
    [
      "own page POST",
      "POST",
      { host: "127.0.0.1:3113", origin: "http://127.0.0.1:3113" },
      true,
      200,
    ],
    [
      "own page as localhost",
      "PUT",
      { host: "localhost:3113", origin: "http://localhost:3113" },
      true,
      200,
    ],
    ["IPv6 loopback", "DELETE", { host: "[::1]:3113", origin: "http://[::1]:3113" }, true, 200],
    [
      "other site POST",
      "POST",
      { host: "127.0.0.1:3113", origin: "https://evil.example" },
      true,
      403,
    ],
    [
      "other localhost port",
      "POST",
      { host: "localhost:3113", origin: "http://localhost:8080" },
      true,
      403,
    ],
    ["sandboxed page", "POST", { host: "127.0.0.1:3113", origin: "null" }, true, 403],
    [
      "cross-site without Origin",
      "POST",
      { host: "127.0.0.1:3113", "sec-fetch-site": "cross-site" },
      true,
      403,
    ],
    [
      "other site GET",
      "GET",
      { host: "127.0.0.1:3113", origin: "https://evil.example" },
      true,
      200,
    ],
    ["rebound name", "GET", { host: "evil.example:3113" }, true, 403],
    ["look-alike name", "GET", { host: "localhost.evil.example:3113" }, true, 403],
    ["name with a token", "GET", { host: "console.lan:3113" }, false, 200],
    [
      "other site with a token",
      "POST",
      { host: "console.lan:3113", origin: "https://evil.example" },
      false,
      403,
    ],
  ];
  for (const [name, method, headers, checkHost, status] of cases) {
    const res = await app(checkHost).request("http://x/api/call", { method, headers });
    assert.equal(res.status, status, name);
    await res.body?.cancel();
  }
});

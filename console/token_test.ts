import assert from "node:assert/strict";
import { Hono } from "hono";
import { cookieValue, requireToken, TOKEN_COOKIE } from "./token.ts";
import { startConsole } from "./mod.ts";
import type { EngineLink } from "./link.ts";

Deno.test("requireToken() admits a bearer token or the cookie set by ?token=", async () => {
  const app = new Hono();
  app.use("*", requireToken("s3cret"));
  app.get("/workers", (c) => c.text("page"));

  const none = await app.request("/workers");
  assert.equal(none.status, 401);
  assert.match((await none.json()).error.message, /\?token=<token>/);

  const wrong = await app.request("/workers", { headers: { authorization: "Bearer nope" } });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();

  const bearer = await app.request("/workers", { headers: { authorization: "Bearer s3cret" } });
  assert.equal(await bearer.text(), "page");

  const link = await app.request("/workers?token=s3cret&x=1");
  assert.equal(link.status, 303);
  assert.equal(link.headers.get("location"), "/workers?x=1");
  const cookie = link.headers.get("set-cookie") ?? "";
  // Not the token: browsers send the cookie to every port of the host name.
  assert.match(cookie, new RegExp(`^${TOKEN_COOKIE}=${cookieValue("s3cret")};`));
  assert.doesNotMatch(cookie, /s3cret/);
  assert.notEqual(cookieValue("s3cret"), cookieValue("s3cret2"));
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);

  const withCookie = await app.request("/workers", {
    headers: { cookie: `${TOKEN_COOKIE}=${cookieValue("s3cret")}` },
  });
  assert.equal(await withCookie.text(), "page");
  const tokenAsCookie = await app.request("/workers", {
    headers: { cookie: `${TOKEN_COOKIE}=s3cret` },
  });
  assert.equal(tokenAsCookie.status, 401, "the token itself is not the cookie");
  await tokenAsCookie.body?.cancel();
});

Deno.test("startConsole() refuses a non-loopback address without a token", async () => {
  const link: EngineLink = {
    engineUrl: "ws://127.0.0.1:1",
    call: () => Promise.reject(new Error("not called")),
    listen: () => () => {},
    close: () => Promise.resolve(),
  };
  await assert.rejects(
    startConsole({ link, host: "0.0.0.0", port: 0 }),
    /Console bound to "0\.0\.0\.0" requires a token/,
  );
});

Deno.test("requireToken() says why it refuses: a wrong link token, an old cookie, none; a page as HTML", async () => {
  const app = new Hono();
  app.use("*", requireToken("s3cret"));
  app.get("/workers", (c) => c.text("page"));
  const cases: [what: string, path: string, headers: Record<string, string>, says: RegExp][] = [
    ["a wrong ?token=", "/workers?token=nope", {}, /^The token in the link is not this console's/],
    [
      "an old cookie",
      "/workers",
      { cookie: `${TOKEN_COOKIE}=old` },
      /^The console no longer accepts this browser's token/,
    ],
    ["nothing", "/workers", {}, /^Console token required: /],
  ];
  for (const [what, path, headers, says] of cases) {
    const json = await app.request(path, { headers });
    assert.equal(json.status, 401, what);
    assert.match((await json.json()).error.message, says, what);
    const page = await app.request(path, { headers: { ...headers, accept: "text/html" } });
    assert.equal(page.status, 401, what);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/, what);
    assert.match(await page.text(), /\?token=&#60;token&#62;/, `${what}: the message, escaped`);
  }
});

import assert from "node:assert/strict";
import { MemoryLogger } from "./_testing.ts";
import { HttpError } from "./errors.ts";
import { interpretMiddlewareResult } from "./middleware.ts";

Deno.test("interpretMiddlewareResult() continues, merges context, or responds", async () => {
  const log = new MemoryLogger();
  assert.deepEqual(interpretMiddlewareResult("m", { action: "continue" }, { a: 1 }, log), {
    kind: "continue",
    context: { a: 1 },
  });
  assert.deepEqual(
    interpretMiddlewareResult("m", { action: "continue", context: { user: "ada", a: 2 } }, {
      a: 1,
      b: 1,
    }, log),
    { kind: "continue", context: { a: 2, b: 1, user: "ada" } },
  );
  const outcome = interpretMiddlewareResult(
    "m",
    {
      action: "respond",
      response: { status_code: 401, body: { error: "no" }, headers: { "x-why": "key" } },
    },
    {},
    log,
  );
  assert.equal(outcome.kind, "respond");
  if (outcome.kind === "respond") {
    assert.equal(outcome.response.status, 401);
    assert.equal(outcome.response.headers.get("x-why"), "key");
    assert.deepEqual(await outcome.response.json(), { error: "no" });
  }
  assert.deepEqual(log.entries, []);
});

Deno.test("interpretMiddlewareResult() warns, naming the middleware, and continues on garbage", () => {
  const cases: [unknown, string][] = [
    [undefined, 'Middleware "auth::check" returned no result: treated as continue'],
    [null, 'Middleware "auth::check" returned no result: treated as continue'],
    [
      { action: "maybe" },
      'Middleware "auth::check" returned an unknown action "maybe": treated as continue',
    ],
    [
      { ok: true },
      'Middleware "auth::check" returned an unknown action (none): treated as continue',
    ],
    [42, 'Middleware "auth::check" returned a result that is not a map: treated as continue'],
    [
      { action: "continue", context: [1] },
      'Middleware "auth::check" returned a context that is not a map: ignored',
    ],
  ];
  for (const [result, warning] of cases) {
    const log = new MemoryLogger();
    const outcome = interpretMiddlewareResult("auth::check", result, { kept: true }, log);
    assert.deepEqual(
      outcome,
      { kind: "continue", context: { kept: true } },
      JSON.stringify(result),
    );
    assert.deepEqual(log.entries.map((e) => [e.level, e.message]), [["warn", warning]]);
  }
});

Deno.test("interpretMiddlewareResult() fails a respond without a valid response", () => {
  assert.throws(
    () => interpretMiddlewareResult("m", { action: "respond" }, {}, new MemoryLogger()),
    (e) =>
      e instanceof HttpError && e.status === 500 &&
      e.message === 'Middleware "m" responded but returned no response',
  );
});

import assert from "node:assert/strict";
import { toHttpResponse } from "./response.ts";

Deno.test("toHttpResponse() maps status_code, headers and body", async () => {
  const cases: [unknown, number, string | null, string, Record<string, string>?][] = [
    [{ status_code: 201, body: { id: 7 } }, 201, "application/json", '{"id":7}'],
    [{ body: "hi", headers: { "Content-Type": "text/plain" } }, 200, "text/plain", "hi"],
    [{ body: "hi" }, 200, "application/json", '"hi"'],
    [
      { body: '{"raw":true}', headers: { "content-type": "application/json" } },
      200,
      "application/json",
      '{"raw":true}',
    ],
    [{ body: { a: 1 }, headers: { "content-type": "text/plain" } }, 200, "text/plain", '{"a":1}'],
    [{ body: null }, 200, "application/json", "null"],
    [{ body: null, headers: { "content-type": "text/plain" } }, 200, "text/plain", ""],
    [{ status_code: 404 }, 404, null, ""],
    [{ status_code: 204, body: { ignored: true } }, 204, null, ""],
    [{ body: 0 }, 200, "application/json", "0"],
    [{ headers: ["X-A: 1", "Set-Cookie: a=1", "Set-Cookie: b=2"] }, 200, null, "", {
      "x-a": "1",
      "set-cookie": "a=1, b=2",
    }],
    [{ headers: { "x-n": 5 } }, 200, null, "", { "x-n": "5" }],
    [{}, 200, null, ""],
  ];
  for (const [value, status, type, text, headers] of cases) {
    const outcome = toHttpResponse(value);
    assert.equal(outcome.kind, "ok", JSON.stringify(value));
    if (outcome.kind !== "ok") continue;
    assert.equal(outcome.response.status, status);
    assert.equal(outcome.response.headers.get("content-type"), type, JSON.stringify(value));
    assert.equal(await outcome.response.text(), text);
    for (const [name, v] of Object.entries(headers ?? {})) {
      assert.equal(outcome.response.headers.get(name), v);
    }
  }
});

Deno.test("toHttpResponse() says what is wrong with an invalid response", () => {
  const cases: [unknown, string][] = [
    [undefined, "returned no response"],
    [null, "returned no response"],
    ["ok", 'returned the string "ok" instead of a map with status_code, headers and body'],
    [[1], "returned a list instead of a map with status_code, headers and body"],
    [
      { price: 5, sku: "a" },
      "returned an object without status_code, headers or body (keys: price, sku): " +
      "return {status_code: 200, body: <the object>}",
    ],
    [
      { status_code: "201" },
      'returned an invalid status_code the string "201": use an integer from 200 to 599',
    ],
    [
      { status_code: 201.5 },
      "returned an invalid status_code number 201.5: use an integer from 200 to 599",
    ],
    [
      { status_code: 101 },
      "returned an invalid status_code number 101: use an integer from 200 to 599",
    ],
    [
      { headers: "x" },
      'returned invalid headers: expected a map or a list of "Name: value" lines, got the string "x"',
    ],
    [{ headers: { a: { b: 1 } } }, 'returned invalid headers: header "a" has a map, not a string'],
    [
      { headers: ["nocolon"] },
      'returned invalid headers: the string "nocolon" is not a "Name: value" line',
    ],
    [
      { headers: { "x-city": "中山" } },
      'returned invalid headers: header "x-city" holds "中" (U+4E2D), which a header cannot carry: percent-encode the value',
    ],
    [
      { headers: ["X-City: 中山"] },
      'returned invalid headers: header "X-City" holds "中" (U+4E2D), which a header cannot carry: percent-encode the value',
    ],
    // A line break inside a value is named, not written into the message (and the log) as is.
    [
      { headers: { "x-a": "a\r\nSet-Cookie: evil=1" } },
      'returned invalid headers: header "x-a" holds "\\r" (U+000D), which would end the header: remove it',
    ],
    [
      { headers: { "x-a": "a\nb" } },
      'returned invalid headers: header "x-a" holds "\\n" (U+000A), which would end the header: remove it',
    ],
    [
      { headers: ["X-A: a\u0000b"] },
      'returned invalid headers: header "X-A" holds "\\u0000" (U+0000), which would end the header: remove it',
    ],
  ];
  for (const [value, reason] of cases) {
    assert.deepEqual(toHttpResponse(value), { kind: "invalid", reason }, JSON.stringify(value));
  }
  for (const name of ["bad name", "x-a\r\nSet-Cookie: evil"]) {
    assert.deepEqual(toHttpResponse({ headers: { [name]: "x" } }), {
      kind: "invalid",
      reason: `returned invalid headers: header name ${
        JSON.stringify(name)
      } is not a token: use letters, digits and !#$%&'*+-.^_\`|~`,
    });
  }
});

Deno.test("toHttpResponse() gives each response headers of its own", () => {
  const first = toHttpResponse({ body: { n: 1 } });
  const second = toHttpResponse({ body: { n: 2 } });
  assert.ok(first.kind === "ok" && second.kind === "ok");
  first.response.headers.set("access-control-allow-origin", "*");
  first.response.headers.set("content-type", "text/plain");
  assert.equal(second.response.headers.get("access-control-allow-origin"), null);
  assert.equal(second.response.headers.get("content-type"), "application/json");
  const third = toHttpResponse({ body: { n: 3 } });
  assert.ok(third.kind === "ok");
  assert.deepEqual([...third.response.headers], [["content-type", "application/json"]]);
});

Deno.test("toHttpResponse() repeats a header whose map value is a list (Set-Cookie)", () => {
  const cases: [Record<string, unknown>, string[], Record<string, string>][] = [
    [
      { "Set-Cookie": ["sid=1; Path=/; HttpOnly", "theme=dark"] },
      ["sid=1; Path=/; HttpOnly", "theme=dark"],
      {},
    ],
    [{ "set-cookie": ["only=1"], "x-n": [1, 2] }, ["only=1"], { "x-n": "1, 2" }],
    [{ "set-cookie": [] }, [], {}],
  ];
  for (const [headers, cookies, others] of cases) {
    const outcome = toHttpResponse({ status_code: 200, headers, body: { ok: true } });
    assert.equal(outcome.kind, "ok", JSON.stringify(headers));
    if (outcome.kind !== "ok") continue;
    assert.deepEqual(outcome.response.headers.getSetCookie(), cookies);
    for (const [name, v] of Object.entries(others)) {
      assert.equal(outcome.response.headers.get(name), v);
    }
  }
  const nested = toHttpResponse({ headers: { "set-cookie": ["a=1", { b: 2 }] } });
  assert.deepEqual(nested, {
    kind: "invalid",
    reason: 'returned invalid headers: header "set-cookie" has a list holding a map, not a string',
  });
});

Deno.test("toHttpResponse() drops hop-by-hop headers and those `connection` names, keeping the rest", () => {
  const cases: [unknown, string[]][] = [
    [
      {
        "Connection": "close, X-Secret-Hop",
        "Keep-Alive": "timeout=1",
        "Transfer-Encoding": "chunked",
        "Upgrade": "websocket",
        "TE": "trailers",
        "Trailer": "x-sum",
        "Proxy-Connection": "keep-alive",
        "X-Secret-Hop": "1",
        "x-kept": "yes",
      },
      ["content-type", "x-kept"],
    ],
    [["Connection: upgrade", "Upgrade: h2c", "X-Kept: yes"], ["content-type", "x-kept"]],
    // A `connection` value naming no valid field is dropped with it, nothing else.
    [{ "connection": "(bad), ,", "x-kept": "yes" }, ["content-type", "x-kept"]],
  ];
  for (const [headers, names] of cases) {
    const outcome = toHttpResponse({ status_code: 200, headers, body: { ok: true } });
    assert.ok(outcome.kind === "ok", JSON.stringify(headers));
    assert.deepEqual([...outcome.response.headers.keys()], names, JSON.stringify(headers));
  }
});

import assert from "node:assert/strict";
import { bodyLimit, parseBody, readBody } from "./body.ts";
import { HttpError } from "./errors.ts";
import { describeJsonError } from "./json_error.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("parseBody() parses by content type", () => {
  const cases: [string | null, Uint8Array, unknown][] = [
    ["application/json", bytes('{"a":1}'), { a: 1 }],
    ["Application/JSON; charset=UTF-8", bytes("[1,2]"), [1, 2]],
    ["application/vnd.api+json", bytes('"x"'), "x"],
    ["application/json", bytes(""), null],
    ["text/plain", bytes("héllo"), "héllo"],
    ["text/csv; charset=iso-8859-1", new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "café"],
    ["application/x-www-form-urlencoded", bytes("a=1&b=x+y&a=2"), { a: "2", b: "x y" }],
    ["image/png", new Uint8Array([0, 1, 255]), { content_type: "image/png", base64: "AAH/" }],
    [null, bytes("raw"), { content_type: "application/octet-stream", base64: "cmF3" }],
  ];
  for (const [type, body, expected] of cases) {
    assert.deepEqual(parseBody(body, type), expected, String(type));
  }
});

Deno.test("parseBody() answers malformed JSON with a 400 that says where it breaks", () => {
  assert.throws(
    () => parseBody(bytes('{"a": 1,\n  "b": }'), "application/json"),
    (e) =>
      e instanceof HttpError && e.status === 400 && e.code === "INVALID_BODY" &&
      e.message === 'Request body is not valid JSON: unexpected "}" at line 2, column 8',
  );
});

Deno.test("describeJsonError() points at the first offending character", () => {
  const cases: [string, string][] = [
    ['{"a":}', 'unexpected "}" at line 1, column 6'],
    ['{"a":1', "unexpected end of input at line 1, column 7"],
    ["nope", 'unexpected "n" at line 1, column 1'],
    ['{"a":1}x', 'unexpected "x" at line 1, column 8'],
    ["[1,2,\n3,]", 'unexpected "]" at line 2, column 3'],
    ["{a:1}", 'unexpected "a" at line 1, column 2'],
    ['"bad \\q"', 'unexpected "\\\\" at line 1, column 6'],
    ["01", 'unexpected "1" at line 1, column 2'],
    ["", "unexpected end of input at line 1, column 1"],
  ];
  for (const [text, expected] of cases) {
    assert.throws(() => JSON.parse(text));
    assert.equal(describeJsonError(text), expected, text);
  }
});

Deno.test("readBody() refuses a declared length over the limit without reading it", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(1024));
    },
  });
  const request = new Request("http://x/", {
    method: "POST",
    body: stream,
    headers: { "content-length": "5000" },
  });
  await assert.rejects(
    readBody(request, bodyLimit(4096)),
    (e) => e instanceof HttpError && e.status === 413,
  );
  assert.ok(pulled <= 1, `pulled ${pulled} chunks`);
});

Deno.test("readBody() stops reading a chunked body at the limit", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(1024));
    },
  });
  const request = new Request("http://x/", { method: "POST", body: stream });
  await assert.rejects(
    readBody(request, bodyLimit(4096)),
    (e) => e instanceof HttpError && e.status === 413 && /body_limit of 4096 bytes/.test(e.message),
  );
  assert.ok(pulled <= 6, `pulled ${pulled} chunks`);
});

Deno.test("readBody() reads a body of exactly the limit, and none for a GET", async () => {
  const exact = new Request("http://x/", {
    method: "POST",
    body: "x".repeat(10),
    headers: { "content-type": "text/plain" },
  });
  assert.equal(await readBody(exact, bodyLimit(10)), "x".repeat(10));
  assert.equal(await readBody(new Request("http://x/"), bodyLimit(10)), null);
});

Deno.test("bodyLimit() is body_limit, or the engine's max_frame_bytes where that is lower", () => {
  const cases: [number, number | undefined, number, RegExp][] = [
    [1024, undefined, 1024, /^Request body is larger than the body_limit of 1024 bytes$/],
    [1024, 4096, 1024, /^Request body is larger than the body_limit of 1024 bytes$/],
    [4096, 4096, 4096, /body_limit of 4096 bytes$/],
    [
      1_048_576,
      4096,
      4096,
      /^Request body is larger than 4096 bytes, the engine's max_frame_bytes \(set in the engine config, below engine-http's body_limit of 1048576\)/,
    ],
  ];
  for (const [body_limit, maxFrameBytes, bytes, refusal] of cases) {
    const limit = bodyLimit(body_limit, maxFrameBytes);
    assert.equal(limit.bytes, bytes);
    assert.match(limit.refusal, refusal);
  }
});

Deno.test("parseBody() refuses JSON nested deeper than 500 levels", () => {
  const nested = (depth: number, open = "[", close = "]", inner = "") =>
    bytes(open.repeat(depth) + inner + close.repeat(depth));
  assert.equal(JSON.stringify(parseBody(nested(500), "application/json")).length, 1000);
  // Brackets inside strings do not count.
  const quoted = bytes(`[${JSON.stringify("[".repeat(2000))}]`);
  assert.equal((parseBody(quoted, "application/json") as string[])[0]!.length, 2000);
  for (const body of [nested(501), nested(10_000), nested(600, '{"a":', "}", "1")]) {
    assert.throws(
      () => parseBody(body, "application/json"),
      (e) =>
        e instanceof HttpError && e.status === 400 && e.code === "INVALID_BODY" &&
        e.message === "Request body is JSON nested deeper than 500 levels",
    );
  }
});

Deno.test("parseBody() keeps integers beyond 2^53 in a JSON body digit for digit", () => {
  const cases: [string, string][] = [
    ["application/json", '{"id":123456789012345678901,"snowflake":9007199254740993,"f":1.5}'],
    ["application/merge-patch+json", "[9007199254740993,-9223372036854775809,7]"],
    ["application/json", '{"s":"12345678901234567890","n":9007199254740991}'],
  ];
  for (const [type, text] of cases) {
    assert.equal(JSON.stringify(parseBody(bytes(text), type)), text, text);
  }
  // Other bodies carry digits as text, as before.
  assert.deepEqual(
    parseBody(bytes("id=123456789012345678901"), "application/x-www-form-urlencoded"),
    { id: "123456789012345678901" },
  );
  assert.equal(parseBody(bytes("9007199254740993"), "text/plain"), "9007199254740993");
});

Deno.test("parseBody() with a long integer: the same depth limit, the same 400 for malformed JSON", () => {
  const long = "123456789012345678901";
  const nested = (depth: number) => bytes("[".repeat(depth) + long + "]".repeat(depth));
  assert.equal(
    JSON.stringify(parseBody(nested(500), "application/json")),
    "[".repeat(500) + long + "]".repeat(500),
  );
  assert.throws(
    () => parseBody(nested(501), "application/json"),
    (e) =>
      e instanceof HttpError && e.message === "Request body is JSON nested deeper than 500 levels",
  );
  assert.throws(
    () => parseBody(bytes(`{"id": ${long},\n  "b": }`), "application/json"),
    (e) =>
      e instanceof HttpError && e.status === 400 &&
      e.message === 'Request body is not valid JSON: unexpected "}" at line 2, column 8',
  );
});

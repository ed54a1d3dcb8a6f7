import assert from "node:assert/strict";
import { errorOf, testApp } from "./_testing.ts";

/** `text` compressed with `format`. */
async function compressed(
  text: string,
  format: CompressionFormat,
): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function echoBodyApp(config: Record<string, unknown> = {}) {
  return testApp({
    functions: {
      f: (payload) => ({ status_code: 200, body: { body: (payload as { body: unknown }).body } }),
    },
    triggers: [{ function_id: "f", config: { api_path: "/x", http_method: "POST" } }],
    config,
  });
}

Deno.test("app parses a gzip or deflate request body once decompressed", async () => {
  const { app } = echoBodyApp();
  const cases = [
    ["application/json", "gzip", '{"a":"café"}', { a: "café" }],
    ["application/json", "x-gzip", "[1,2]", [1, 2]],
    ["application/json", "deflate", '{"b":true}', { b: true }],
    ["text/plain", "GZIP", "hello", "hello"],
    ["application/x-www-form-urlencoded", "gzip", "a=1&b=2", { a: "1", b: "2" }],
    ["application/json", "identity", '{"c":1}', { c: 1 }],
  ] as const;
  for (const [type, coding, text, expected] of cases) {
    const bytes = coding === "identity"
      ? new TextEncoder().encode(text)
      : await compressed(text, coding.toLowerCase().endsWith("gzip") ? "gzip" : "deflate");
    const response = await app.request("/x", {
      method: "POST",
      body: bytes,
      headers: { "content-type": type, "content-encoding": coding },
    });
    assert.equal(response.status, 200, coding);
    assert.deepEqual(await response.json(), { body: expected }, `${type} ${coding}`);
  }
});

Deno.test("app refuses a request body it cannot decompress, saying which coding", async () => {
  const { app, calls } = echoBodyApp({ body_limit: 20_000 });
  const post = (body: Uint8Array<ArrayBuffer>, coding: string) =>
    app.request("/x", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "content-encoding": coding },
    });
  const unknown = await post(new TextEncoder().encode("{}"), "br");
  assert.equal(unknown.status, 415);
  assert.deepEqual(await errorOf(unknown), {
    code: "UNSUPPORTED_ENCODING",
    message:
      'Request body has Content-Encoding "br", which engine-http cannot decode: use gzip or deflate, or send it uncompressed',
  });
  const broken = await post(new TextEncoder().encode('{"a":1}'), "gzip");
  assert.equal(broken.status, 400);
  const error = await errorOf(broken);
  assert.equal(error.code, "INVALID_BODY");
  assert.match(
    error.message,
    /^Request body could not be decompressed \(Content-Encoding "gzip"\): /,
  );
  // A small body that inflates past body_limit is refused without being inflated whole.
  const small = await compressed(`"${"a".repeat(5_000_000)}"`, "gzip");
  assert.ok(small.byteLength < 20_000);
  const bomb = await post(small, "gzip");
  assert.equal(bomb.status, 413);
  assert.deepEqual(await errorOf(bomb), {
    code: "PAYLOAD_TOO_LARGE",
    message: "Request body is larger than the body_limit of 20000 bytes once decompressed",
  });
  assert.equal(calls.length, 0);
});

import assert from "node:assert/strict";
import { acceptUpgrade } from "./handshake.ts";
import type { RequestHead } from "./http_head.ts";

function head(overrides: Partial<RequestHead> = {}, headers: Record<string, string> = {}) {
  return {
    method: "GET",
    target: "/",
    version: "1.1",
    headers: new Map(Object.entries({
      upgrade: "websocket",
      connection: "keep-alive, Upgrade",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-version": "13",
      ...headers,
    })),
    ...overrides,
  };
}

Deno.test("acceptUpgrade() answers 101 with the Sec-WebSocket-Accept of RFC 6455's example", () => {
  const hs = acceptUpgrade(head());
  assert.ok(hs.ok);
  assert.equal(
    new TextDecoder().decode(hs.response),
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
  );
});

Deno.test("acceptUpgrade() refuses requests that are not a valid version 13 upgrade", () => {
  const cases: [string, RequestHead, number, RegExp][] = [
    ["POST", head({ method: "POST" }), 400, /GET request, not POST/],
    ["HTTP/1.0", head({ version: "1.0" }), 400, /HTTP\/1\.1/],
    ["no Connection: Upgrade", head({}, { connection: "keep-alive" }), 400, /Connection/],
    ["version 8", head({}, { "sec-websocket-version": "8" }), 426, /"8": expected "13"/],
    ["key too short", head({}, { "sec-websocket-key": "abc" }), 400, /Sec-WebSocket-Key "abc"/],
    ["key not base64", head({}, { "sec-websocket-key": "!GhlIHNhbXBsZSBub25jZQ==" }), 400, /Key/],
    // The native server read a body's bytes as the first WebSocket frames; Deno's refuses it.
    ["a body", head({}, { "content-length": "5" }), 400, /no body: Content-Length "5"/],
    ["a chunked body", head({}, { "transfer-encoding": "chunked" }), 400, /Transfer-Encoding/],
  ];
  for (const [name, request, status, message] of cases) {
    const hs = acceptUpgrade(request);
    assert.ok(!hs.ok, name);
    assert.equal(hs.status, status, name);
    assert.match(hs.message, message, name);
  }
  const noVersion = head();
  noVersion.headers.delete("sec-websocket-version");
  const hs = acceptUpgrade(noVersion);
  assert.ok(!hs.ok && hs.status === 426 && hs.headers?.["sec-websocket-version"] === "13");
  assert.ok(acceptUpgrade(head({}, { "content-length": "0" })).ok, "Content-Length: 0");
});

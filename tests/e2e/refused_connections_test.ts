/**
 * On the `native` transport a client the engine's port refuses does not keep
 * its connection: after the refusal (401 without the token, 403 from a web
 * page of another site, 404 for an unknown channel or path, 426 for plain
 * HTTP on `/`), and after a plain HTTP answer such as `/health`, the engine
 * closes it, so a client without the token cannot hold connections (the
 * request head itself has 10 s, `transport/http_head.ts`). The `deno`
 * transport cannot do this: `Deno.serve` keeps every connection open for more
 * requests with no time limit and ignores a handler's `Connection: close`, and
 * has no time limit for a request head either (denoland/deno#3515, #9411);
 * README and RELIABILITY.md say so. A real engine process with a token; raw
 * TCP clients.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { upgradeHead, within } from "./_raw_websocket.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const CONFIG = `host: 127.0.0.1
port: 0
auth:
  token: refused-connections-test-token
console:
  enabled: false
workers: []
`;

const CASES: [string, string, number][] = [
  ["no token", upgradeHead("/"), 401],
  ["a wrong token", upgradeHead("/otel", "Authorization: Bearer nope\r\n"), 401],
  ["a web page of another site", upgradeHead("/", "Origin: http://evil.test\r\n"), 403],
  ["an unknown channel", upgradeHead("/ws/channels/nope?key=k&dir=read"), 404],
  ["an unknown path", "GET /admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404],
  ["plain HTTP on /", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 426],
  // Answered, and the connection closed too: or an idle client holds it as long as it likes.
  ["GET /health", "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 200],
];

/** Sends `head`, reads until the engine closes the connection; the status of what it answered. */
async function refusedThenClosed(port: number, head: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    let text = "";
    const buf = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += dec.decode(buf.subarray(0, n));
    }
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("native transport: a refused client's connection is closed after the answer", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file, env: { ENGINE_TRANSPORT: "native" } });
  try {
    for (const [what, head, status] of CASES) {
      const got = await within(
        10_000,
        `the engine closing the connection of ${what}`,
        refusedThenClosed(engine.port, head),
      );
      assert.equal(got, status, what);
    }
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

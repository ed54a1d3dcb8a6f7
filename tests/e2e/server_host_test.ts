/**
 * The engine's port routes by the request target, never by the `Host`
 * header, on both servers: Deno builds a request's URL as `http://` + Host +
 * target, so a Host holding `/`, `?` or `#` chose the route on the `deno`
 * transport, and one that makes no URL (a space, port 99999) got a 500 and
 * an error log line per request. Such a Host is refused with 400
 * INVALID_HOST (RFC 9112 §3.2) and nothing is logged.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The status line's code and the JSON body of the response to `head`. */
async function send(port: number, head: string): Promise<{ status: number; body: unknown }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    let text = "";
    const buf = new Uint8Array(4096);
    for (;;) {
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && enc.encode(text).length >= end + 4 + Number(length)) {
        const body = text.slice(end + 4);
        return { status: Number(text.slice(9, 12)), body: body === "" ? null : JSON.parse(body) };
      }
      const n = await conn.read(buf);
      if (n === null) throw new Error(`Connection closed after ${JSON.stringify(text)}`);
      text += dec.decode(buf.subarray(0, n));
    }
  } finally {
    conn.close();
  }
}

const UPGRADE = "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
const get = (target: string, host: string, extra = "") =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`;
const codeOf = (body: unknown) => (body as { error?: { code?: string } } | null)?.error?.code;

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] a Host header that is not a host is refused; the target alone routes`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport, token: "tok" });
    try {
      const refused: [string, string][] = [
        [get("/x", "a/health?"), "a path in Host turning /x into /health"],
        [get("/health", "a/?"), "a path in Host turning /health into /"],
        [get("/nope", "a/otel?", UPGRADE), "a path in Host turning /nope into /otel"],
        [get("/nope", "a/ws/channels/c?key=k&dir=read&", UPGRADE), "a channel in Host"],
        [get("/health", "a#"), "a fragment in Host"],
        [get("/health", "a b"), "a space in Host"],
        [get("/health", "a\\b"), "a backslash in Host"],
        [get("/health", "u:p@a"), "userinfo in Host"],
        [get("/health", "a:99999"), "a port past 65535"],
        [get("/health", "[zz"), "an unclosed bracket"],
        [get("/health", "a:b"), "a port that is no number"],
      ];
      for (const [head, what] of refused) {
        const { status, body } = await send(engine.port, head);
        assert.deepEqual([status, codeOf(body)], [400, "INVALID_HOST"], `${what}: ${head}`);
      }
      const routed: [string, number, string | undefined][] = [
        [get("/health", "a"), 200, undefined],
        [get("/health", "127.0.0.1:8080"), 200, undefined],
        [get("/health", "[::1]:49134"), 200, undefined],
        [get("/health", ""), 200, undefined],
        ["GET /health HTTP/1.0\r\n\r\n", 200, undefined],
        [get("http://other/health", "a"), 200, undefined],
        [get("/x", "a"), 404, "NOT_FOUND"],
        [get("/", "a", UPGRADE), 401, "AUTH_ERROR"],
      ];
      for (const [head, want, code] of routed) {
        const { status, body } = await send(engine.port, head);
        assert.deepEqual([status, codeOf(body)], [want, code], head);
      }
      const errors = engine.logs.query({ text: "Engine server error" });
      assert.deepEqual(errors.map((e) => e.message), []);
    } finally {
      await engine.stop();
    }
  });
}

/**
 * RFC 6455 conformance of the engine's WebSocket servers, over raw TCP (the
 * server side of what the Autobahn test suite checks): fragmentation,
 * control frames, protocol violations and their close codes, UTF-8, the
 * closing handshake and the opening handshake. The violations run against
 * the `native` server; Deno's server answers most of them by ending the TCP
 * connection without a close frame (RFC 6455 allows that: "fail" may skip
 * the close frame), so only what both do alike runs against both.
 */
import { Buffer } from "node:buffer";
import assert from "node:assert/strict";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import {
  closePayload,
  type Frame,
  frame,
  healthCall,
  Opcode,
  RawWebSocket,
  upgradeHead,
} from "./_raw_websocket.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A connection to `engine` past its `workerregistered` frame; closed after `fn`. */
async function connected(
  engine: RunningEngine,
  fn: (ws: RawWebSocket) => Promise<void>,
): Promise<void> {
  const ws = await RawWebSocket.open(engine.port);
  try {
    const first = await ws.next();
    assert.match(dec.decode(first?.payload), /"type":"workerregistered"/);
    await fn(ws);
  } finally {
    ws.close();
  }
}

async function withTransport(
  transport: TransportName,
  fn: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
  try {
    await fn(engine);
  } finally {
    await engine.stop();
  }
}

/** A text message cut into fragments at `cuts` (byte offsets). */
function fragments(bytes: Uint8Array, cuts: number[], opcode: number = Opcode.Text): Uint8Array[] {
  const bounds = [0, ...cuts, bytes.length];
  return bounds.slice(0, -1).map((from, i) =>
    frame(i === 0 ? opcode : Opcode.Continuation, bytes.subarray(from, bounds[i + 1]), {
      fin: i === bounds.length - 2,
    })
  );
}

const isPong = (payload: string) => (f: Frame) =>
  f.opcode === Opcode.Pong && dec.decode(f.payload) === payload;

for (const transport of ["deno", "native"] as const) {
  Deno.test(`[${transport}] fragmented calls reach the engine and are answered, pings among their fragments too`, () =>
    withTransport(transport, (engine) =>
      connected(engine, async (ws) => {
        const cases: [string, (text: Uint8Array) => Uint8Array[]][] = [
          ["one frame", (t) => fragments(t, [])],
          ["three fragments", (t) => fragments(t, [5, 20])],
          ["a fragment per byte", (t) =>
            fragments(t, Array.from({ length: t.length - 1 }, (_, i) => i + 1))],
          [
            "empty fragments first, between and last",
            (t) => [
              frame(Opcode.Text, "", { fin: false }),
              frame(Opcode.Continuation, "", { fin: false }),
              frame(Opcode.Continuation, t, { fin: false }),
              frame(Opcode.Continuation, ""),
            ],
          ],
          [
            "ping, pong and ping between fragments",
            (t) => {
              const [a, b, c] = fragments(t, [3, 30]);
              return [a!, frame(Opcode.Ping, "mid"), b!, frame(Opcode.Pong, "x"), c!];
            },
          ],
        ];
        for (const [name, split] of cases) {
          const call = healthCall();
          await ws.write(...split(enc.encode(call.text)));
          const result = await ws.until(call.isResult);
          assert.ok(result, `${name}: answered`);
          if (name.startsWith("ping")) {
            const pong = ws.frames.find(isPong("mid"));
            assert.ok(pong && ws.frames.indexOf(pong) < ws.frames.indexOf(result), name);
          }
        }
      })));

  Deno.test(`[${transport}] a text message reaches the engine as sent, a leading byte order mark too`, () =>
    withTransport(transport, (engine) =>
      connected(engine, async (ws) => {
        // U+FEFF is not JSON whitespace: the call is not valid JSON, whichever server reads it.
        await ws.write(frame(Opcode.Text, `\uFEFF${healthCall().text}`));
        const error = await ws.until((f) => f.opcode === Opcode.Text);
        assert.match(dec.decode(error?.payload), /"code":"invalid_json"/);
      })));

  Deno.test(`[${transport}] a ping is answered with a pong carrying its payload`, () =>
    withTransport(transport, (engine) =>
      connected(engine, async (ws) => {
        for (const payload of ["", "x", "é✓😀", "p".repeat(125)]) {
          await ws.write(frame(Opcode.Ping, payload));
          assert.ok(await ws.until((f) => f.opcode === Opcode.Pong), payload);
          assert.equal(dec.decode(ws.frames.at(-1)!.payload), payload);
        }
      })));

  Deno.test(`[${transport}] pings sent together each get their pong, in order, whole or a byte per write`, () =>
    withTransport(transport, (engine) =>
      connected(engine, async (ws) => {
        for (const chopped of [false, true]) {
          const payloads = Array.from({ length: 10 }, (_, i) => `payload-${i}-${chopped}`);
          const bytes = Buffer.concat(payloads.map((p) => frame(Opcode.Ping, p)));
          if (!chopped) await ws.write(bytes);
          else for (let i = 0; i < bytes.length; i++) await ws.write(bytes.subarray(i, i + 1));
          const pongs: string[] = [];
          while (pongs.length < payloads.length) {
            const pong = await ws.until((f) => f.opcode === Opcode.Pong);
            pongs.push(dec.decode(pong?.payload));
          }
          assert.deepEqual(pongs, payloads);
        }
      })));

  Deno.test(`[${transport}] a close is answered with a close echoing its code, later frames are ignored and the server ends the connection`, () =>
    withTransport(transport, async (engine) => {
      const cases: [string, Uint8Array, number][] = [
        ["no code", new Uint8Array(0), 1005],
        ["1000 and a reason", closePayload(1000, "bye"), 1000],
        ["1001", closePayload(1001), 1001],
        ["3000", closePayload(3000), 3000],
        ["4999", closePayload(4999), 4999],
      ];
      for (const [name, payload, code] of cases) {
        await connected(engine, async (ws) => {
          const late = healthCall();
          await ws.write(
            frame(Opcode.Close, payload),
            frame(Opcode.Text, late.text),
            frame(Opcode.Ping, "late"),
          );
          const { close, after } = await ws.closing();
          assert.equal(close?.code, code, name);
          assert.equal(after, 0, `${name}: nothing after the close frame`);
          assert.ok(!ws.frames.some(late.isResult), `${name}: the call after the close is ignored`);
        });
      }
    }));

  Deno.test(`[${transport}] the opening handshake: header names in any case, token lists, and the refusals`, () =>
    withTransport(transport, async (engine) => {
      const odd =
        "GET / HTTP/1.1\r\nhOST: a\r\nuPGRADE: WebSocket\r\nCONNECTION: keep-alive, Upgrade\r\n" +
        "sec-websocket-KEY: dGhlIHNhbXBsZSBub25jZQ==\r\nSEC-WEBSOCKET-VERSION: 13\r\n\r\n";
      const ws = await RawWebSocket.open(engine.port, odd);
      ws.close();
      const key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
      const refusals: [string, string, number, RegExp?][] = [
        ["no key", upgradeHead().replace(key, ""), 400],
        ["two keys", upgradeHead().replace(key, key + key), 400],
        [
          "a key of 15 bytes",
          upgradeHead().replace("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ="),
          400,
        ],
        [
          "version 8",
          upgradeHead().replace("Version: 13", "Version: 8"),
          426,
          /\r\nsec-websocket-version: 13\r\n/i,
        ],
        [
          "no version",
          upgradeHead().replace("Sec-WebSocket-Version: 13\r\n", ""),
          426,
          /\r\nsec-websocket-version: 13\r\n/i,
        ],
        [
          "Connection: keep-alive alone",
          upgradeHead().replace("Connection: Upgrade", "Connection: keep-alive"),
          400,
        ],
      ];
      for (const [name, head, status, header] of refusals) {
        const response = await wholeResponse(engine.port, head);
        assert.equal(Number(response.slice(9, 12)), status, `${name}: ${response}`);
        if (header) assert.match(response, header, name);
      }
    }));
}

/** Everything the server sends for `head` until it ends the connection (or 5 s pass). */
async function wholeResponse(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(enc.encode(head));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(4096);
    for (;;) {
      const text = dec.decode(Buffer.concat(chunks));
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && text.length >= end + 4 + Number(length)) return text;
      const n = await conn.read(buf);
      if (n === null) return text;
      chunks.push(buf.slice(0, n));
    }
  } finally {
    conn.close();
  }
}

Deno.test("[native] protocol violations fail the connection with the close code RFC 6455 asks for", () =>
  withTransport("native", async (engine) => {
    const cases: [string, Uint8Array[], number][] = [
      ["continuation with no message", [frame(Opcode.Continuation, "x")], 1002],
      [
        "a new message before the last ended",
        [frame(Opcode.Text, "{", { fin: false }), frame(Opcode.Text, "{}")],
        1002,
      ],
      [
        "a binary message inside a text one",
        [frame(Opcode.Text, "{", { fin: false }), frame(Opcode.Binary, "{}")],
        1002,
      ],
      ["ping of 126 bytes", [frame(Opcode.Ping, new Uint8Array(126))], 1002],
      ["close of 126 bytes", [frame(Opcode.Close, closePayload(1000, "r".repeat(124)))], 1002],
      ["fragmented ping", [
        frame(Opcode.Ping, "a", { fin: false }),
        frame(Opcode.Continuation, "b"),
      ], 1002],
      ["fragmented pong", [frame(Opcode.Pong, "a", { fin: false })], 1002],
      ["fragmented close", [frame(Opcode.Close, closePayload(1000), { fin: false })], 1002],
      ["RSV1 on text", [frame(Opcode.Text, "{}", { rsv: 0x40 })], 1002],
      ["RSV2 on binary", [frame(Opcode.Binary, "{}", { rsv: 0x20 })], 1002],
      ["RSV3 on a ping", [frame(Opcode.Ping, "", { rsv: 0x10 })], 1002],
      ["all RSV bits on a close", [frame(Opcode.Close, "", { rsv: 0x70 })], 1002],
      ...[3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf].map((op): [string, Uint8Array[], number] => [
        `opcode 0x${op.toString(16)}`,
        [frame(op, "")],
        1002,
      ]),
      ["unmasked text", [frame(Opcode.Text, "{}", { mask: false })], 1002],
      ["unmasked ping", [frame(Opcode.Ping, "", { mask: false })], 1002],
      ["invalid UTF-8", [frame(Opcode.Text, new Uint8Array([0xce, 0xba, 0xed, 0xa0, 0x80]))], 1007],
      ["close with 1 byte", [frame(Opcode.Close, new Uint8Array([0x03]))], 1002],
      ...[0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535].map(
        (code): [string, Uint8Array[], number] => [
          `close code ${code}`,
          [frame(Opcode.Close, closePayload(code))],
          1002,
        ],
      ),
      [
        "close reason not UTF-8",
        [frame(Opcode.Close, closePayload(1000, new Uint8Array([0x80])))],
        1007,
      ],
      [
        "a 64-bit length with the top bit set",
        [new Uint8Array([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4])],
        1002,
      ],
      // Refused from the header: the 64 MiB are neither sent nor waited for.
      [
        "a length beyond the message limit",
        [new Uint8Array([0x82, 0xff, 0, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4])],
        1009,
      ],
    ];
    for (const [name, bytes, code] of cases) {
      await connected(engine, async (ws) => {
        await ws.write(...bytes);
        const { close, after } = await ws.closing();
        assert.equal(close?.code, code, name);
        assert.equal(after, 0, name);
      });
    }
  }));

Deno.test("[native] invalid UTF-8 in a fragment fails the connection before the message ends", () =>
  withTransport("native", (engine) =>
    connected(engine, async (ws) => {
      await ws.write(
        frame(Opcode.Text, '{"type":', { fin: false }),
        frame(Opcode.Continuation, new Uint8Array([0x22, 0xc0, 0xaf]), { fin: false }),
      );
      assert.equal((await ws.closing()).close?.code, 1007);
    })));

Deno.test("[native] valid close codes are echoed", () =>
  withTransport("native", async (engine) => {
    for (
      const code of [
        1000,
        1001,
        1002,
        1003,
        1007,
        1008,
        1009,
        1010,
        1011,
        1012,
        1013,
        1014,
        3000,
        4999,
      ]
    ) {
      await connected(engine, async (ws) => {
        await ws.write(frame(Opcode.Close, closePayload(code, "é")));
        assert.deepEqual((await ws.closing()).close, { code, reason: "" });
      });
    }
  }));

Deno.test("[native] text split across fragments at every byte of a multi-byte character", () =>
  withTransport("native", (engine) =>
    connected(engine, async (ws) => {
      // Valid: a call whose data holds 2-, 3- and 4-byte characters, cut at every byte.
      for (let offset = 0; offset <= 9; offset++) {
        const call = healthCall();
        const bytes = enc.encode(call.text.replace('"data":{}', '"data":{"s":"é✓😀"}'));
        const at = Buffer.from(bytes).indexOf("é") + offset;
        await ws.write(...fragments(bytes, [at]));
        assert.ok(await ws.until(call.isResult), `cut at ${offset} bytes into "é✓😀"`);
      }
    })));

Deno.test("[native] invalid UTF-8 split across fragments fails with 1007 wherever it is cut", () =>
  withTransport("native", async (engine) => {
    // A code point past U+10FFFF, an overlong slash, a surrogate.
    const bad = [[0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80]];
    for (const seq of bad) {
      const bytes = new Uint8Array([0x61, ...seq, 0x62]);
      for (let cut = 1; cut < bytes.length; cut++) {
        await connected(engine, async (ws) => {
          await ws.write(...fragments(bytes, [cut]));
          assert.equal((await ws.closing()).close?.code, 1007, `${seq} cut at ${cut}`);
        });
      }
    }
  }));

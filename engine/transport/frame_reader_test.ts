import { Buffer } from "node:buffer";
import assert from "node:assert/strict";
import { encodeFrame } from "../../sdk/typescript/websocket/frame.ts";
import { FrameError, type FrameHandler, FrameReader, Opcode } from "./frame_reader.ts";

const enc = new TextEncoder();

/** A reader that records what it hands on, as readable strings. */
function recorder(maxMessageBytes = 1024 * 1024, bufferBytes?: number, framesPerParse?: number) {
  const events: string[] = [];
  const handler: FrameHandler = {
    text: (t) => events.push(`text:${t}`),
    binary: (b) => events.push(`binary:${[...b].join(",")}`),
    ping: (p) => events.push(`ping:${new TextDecoder().decode(p)}`),
    pong: () => events.push("pong"),
    close: (code, reason) => events.push(`close:${code}:${reason}`),
  };
  const reader = new FrameReader(handler, {
    maxMessageBytes,
    ...(bufferBytes ? { bufferBytes } : {}),
    ...(framesPerParse ? { framesPerParse } : {}),
  });
  return { reader, events };
}

function frame(opcode: number, payload: Uint8Array | string, fin = true, mask = true): Uint8Array {
  return encodeFrame(
    opcode,
    typeof payload === "string" ? enc.encode(payload) : payload,
    mask,
    fin,
  );
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

Deno.test("FrameReader hands on text, binary, ping, pong and close frames", () => {
  const cases: [Uint8Array, string[]][] = [
    [frame(Opcode.Text, "hello"), ["text:hello"]],
    [frame(Opcode.Text, ""), ["text:"]],
    [frame(Opcode.Text, "é😀"), ["text:é😀"]],
    // A byte order mark is text like any other: kept, at the start too (TextDecoder drops it).
    [frame(Opcode.Text, "\uFEFFhi\uFEFF"), ["text:\uFEFFhi\uFEFF"]],
    [frame(Opcode.Text, "\uFEFF\uFFFD"), ["text:\uFEFF\uFFFD"]],
    [
      concat(frame(Opcode.Text, "\uFEFF", false), frame(Opcode.Continuation, "x")),
      ["text:\uFEFFx"],
    ],
    [frame(Opcode.Close, new Uint8Array([0x03, 0xe8, 0xef, 0xbb, 0xbf])), ["close:1000:\uFEFF"]],
    [frame(Opcode.Binary, new Uint8Array([1, 2, 3])), ["binary:1,2,3"]],
    [frame(Opcode.Ping, "abc"), ["ping:abc"]],
    [frame(Opcode.Pong, ""), ["pong"]],
    [frame(Opcode.Close, new Uint8Array(0)), ["close:undefined:"]],
    [frame(Opcode.Close, new Uint8Array([0x03, 0xe8, 0x62, 0x79, 0x65])), ["close:1000:bye"]],
    [frame(Opcode.Close, new Uint8Array([0x0f, 0xa0])), ["close:4000:"]],
    // Everything after a close frame is ignored.
    [concat(frame(Opcode.Close, new Uint8Array(0)), frame(Opcode.Text, "late")), [
      "close:undefined:",
    ]],
    // A control frame between the fragments of a message.
    [
      concat(
        frame(Opcode.Text, "he", false),
        frame(Opcode.Ping, "p"),
        frame(Opcode.Continuation, "l", false),
        frame(Opcode.Continuation, "lo"),
      ),
      ["ping:p", "text:hello"],
    ],
    [
      concat(frame(Opcode.Binary, new Uint8Array([1]), false), frame(Opcode.Continuation, "")),
      ["binary:1"],
    ],
    // A character split between fragments, at each of its bytes.
    ...[1, 2, 3].map((cut): [Uint8Array, string[]] => [
      concat(
        frame(Opcode.Text, enc.encode("a😀").subarray(0, 1 + cut), false),
        frame(Opcode.Continuation, enc.encode("a😀").subarray(1 + cut)),
      ),
      ["text:a😀"],
    ]),
  ];
  for (const [bytes, expected] of cases) {
    const { reader, events } = recorder();
    reader.push(bytes);
    assert.deepEqual(events, expected);
  }
});

Deno.test("FrameReader fails hostile frames with the close code RFC 6455 asks for", () => {
  const withByte0 = (b0: number, rest: Uint8Array) => {
    const f = rest.slice();
    f[0] = b0;
    return f;
  };
  const cases: [string, Uint8Array, number, RegExp][] = [
    ["unmasked frame", frame(Opcode.Text, "hi", true, false), 1002, /Unmasked/],
    ["reserved bit 1", withByte0(0xc1, frame(Opcode.Text, "hi")), 1002, /Reserved bits/],
    ["reserved bit 3", withByte0(0x91, frame(Opcode.Text, "hi")), 1002, /Reserved bits/],
    ["data opcode 0x3", frame(0x3, "hi"), 1002, /Unknown opcode 0x3/],
    ["control opcode 0xb", frame(0xb, ""), 1002, /Unknown opcode 0xb/],
    ["control frame of 126 bytes", frame(Opcode.Ping, new Uint8Array(126)), 1002, /at most 125/],
    ["fragmented ping", frame(Opcode.Ping, "p", false), 1002, /unfragmented/],
    ["lone continuation", frame(Opcode.Continuation, "x"), 1002, /without a message/],
    [
      "new message inside a fragmented one",
      concat(frame(Opcode.Text, "a", false), frame(Opcode.Text, "b")),
      1002,
      /fragmented message is incomplete/,
    ],
    ["invalid UTF-8", frame(Opcode.Text, new Uint8Array([0x68, 0xff, 0x69])), 1007, /UTF-8/],
    ["truncated UTF-8", frame(Opcode.Text, new Uint8Array([0xe2, 0x82])), 1007, /UTF-8/],
    ["UTF-16 surrogate", frame(Opcode.Text, new Uint8Array([0xed, 0xa0, 0x80])), 1007, /UTF-8/],
    [
      "invalid UTF-8 across fragments",
      concat(
        frame(Opcode.Text, new Uint8Array([0xe2]), false),
        frame(Opcode.Continuation, new Uint8Array([0x28, 0xa1])),
      ),
      1007,
      /UTF-8/,
    ],
    // Failed fast: a fragment's invalid UTF-8 fails the message before it ends.
    [
      "invalid UTF-8 in a first fragment",
      frame(Opcode.Text, new Uint8Array([0x61, 0xff]), false),
      1007,
      /UTF-8/,
    ],
    [
      "invalid UTF-8 in a middle fragment",
      concat(
        frame(Opcode.Text, new Uint8Array([0xce]), false),
        frame(Opcode.Continuation, new Uint8Array([0xba, 0xf4, 0x90]), false),
      ),
      1007,
      /UTF-8/,
    ],
    [
      "a character cut short by the last fragment",
      concat(
        frame(Opcode.Text, "a", false),
        frame(Opcode.Continuation, new Uint8Array([0xf0, 0x9f])),
      ),
      1007,
      /UTF-8/,
    ],
    ["close reason not UTF-8", frame(Opcode.Close, new Uint8Array([3, 0xe8, 0xff])), 1007, /UTF-8/],
    ["close with 1 byte", frame(Opcode.Close, new Uint8Array([3])), 1002, /1-byte/],
    ["close code 1005", frame(Opcode.Close, new Uint8Array([0x03, 0xed])), 1002, /1005/],
    ["close code 999", frame(Opcode.Close, new Uint8Array([0x03, 0xe7])), 1002, /999/],
    ["close code 5000", frame(Opcode.Close, new Uint8Array([0x13, 0x88])), 1002, /5000/],
    [
      "message over the limit",
      frame(Opcode.Text, "x".repeat(101)),
      1009,
      /^Message of 101 bytes exceeds the limit of 100 bytes$/,
    ],
    [
      "fragments over the limit",
      concat(frame(Opcode.Text, "x".repeat(60), false), frame(Opcode.Continuation, "y".repeat(41))),
      1009,
      /^Message of 101 bytes or more exceeds the limit of 100 bytes$/,
    ],
    // RFC 6455 §5.2: the most significant bit of a 64-bit length must be 0.
    [
      "64-bit length with the top bit set",
      new Uint8Array([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4]),
      1002,
      /most significant bit/,
    ],
    // A 64-bit length of 2^40, header only: refused before any payload is awaited.
    [
      "length beyond 2^32",
      new Uint8Array([0x82, 0xff, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
      1009,
      /^Message of 4294967296 bytes or more exceeds the limit of 100 bytes$/,
    ],
  ];
  for (const [name, bytes, code, message] of cases) {
    const { reader } = recorder(100);
    assert.throws(
      () => reader.push(bytes),
      (e) => e instanceof FrameError && e.code === code && message.test(e.message),
      name,
    );
  }
});

Deno.test("FrameReader.discard() after a 1009 drops the rest of the message and every data frame, and reads control frames", () => {
  const big = frame(Opcode.Binary, new Uint8Array(5000).fill(7));
  const after = concat(
    frame(Opcode.Text, "dropped", false),
    frame(Opcode.Ping, "still read"),
    frame(Opcode.Continuation, "dropped too"),
    frame(Opcode.Binary, new Uint8Array(300)),
    frame(Opcode.Close, new Uint8Array([0x03, 0xf1])),
    frame(Opcode.Text, "after the close"),
  );
  const bytes = concat(big, after);
  // However the bytes arrive: the header alone first, with part of the payload, or all at once.
  for (const first of [4, 100, bytes.length]) {
    for (const chunk of [1, 7, 4096]) {
      const { reader, events } = recorder(1000);
      // One read into the reader's buffer, as the socket does.
      const read = (from: number, to: number) => {
        reader.space().set(bytes.subarray(from, to));
        reader.advance(to - from);
      };
      assert.throws(
        () => read(0, first),
        (e) =>
          e instanceof FrameError && e.code === 1009 &&
          e.message === "Message of 5000 bytes exceeds the limit of 1000 bytes",
      );
      reader.discard();
      for (let off = first; off < bytes.length; off += chunk) {
        read(off, Math.min(off + chunk, bytes.length));
      }
      const where = `first ${first}, chunk ${chunk}`;
      assert.deepEqual(events, ["ping:still read", "close:1009:"], where);
      assert.equal(reader.closed, true, where);
    }
  }
});

Deno.test("FrameReader reads the same messages whatever the bytes' split across reads", () => {
  const message = "héllo, wörld 😀 and some ASCII to cross a word boundary";
  const bytes = concat(
    frame(Opcode.Text, message.slice(0, 7), false),
    frame(Opcode.Ping, "!"),
    frame(Opcode.Continuation, message.slice(7, 20), false),
    frame(Opcode.Continuation, message.slice(20)),
    frame(Opcode.Binary, new Uint8Array(200).map((_, i) => i)),
  );
  const expected = [
    "ping:!",
    `text:${message}`,
    `binary:${[...new Uint8Array(200).map((_, i) => i)].join(",")}`,
  ];
  // Split in two at every byte boundary, and in three around the second fragment's header.
  for (let cut = 0; cut <= bytes.length; cut++) {
    const { reader, events } = recorder();
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
    assert.deepEqual(events, expected, `split at ${cut}`);
  }
  for (let a = 0; a < 40; a++) {
    const { reader, events } = recorder(1024 * 1024, 64);
    reader.push(bytes.subarray(0, a));
    reader.push(bytes.subarray(a, a + 17));
    reader.push(bytes.subarray(a + 17));
    assert.deepEqual(events, expected, `split at ${a} and ${a + 17}`);
  }
  // One byte at a time, through a small buffer that has to move and grow.
  const { reader, events } = recorder(1024 * 1024, 16);
  for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
  assert.deepEqual(events, expected);
});

Deno.test("FrameReader grows its buffer for a frame larger than it, split anywhere", () => {
  const big = frame(Opcode.Text, "z".repeat(70_000));
  const bytes = concat(frame(Opcode.Text, "a"), big, frame(Opcode.Text, "b"));
  const cuts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 65_536];
  for (const cut of [...cuts, bytes.length - 4, bytes.length - 1]) {
    const { reader, events } = recorder(1024 * 1024, 1024);
    reader.push(bytes.subarray(0, cut));
    reader.push(bytes.subarray(cut));
    assert.deepEqual(events, ["text:a", `text:${"z".repeat(70_000)}`, "text:b"], `split at ${cut}`);
  }
});

Deno.test("FrameReader unmasks payloads of every length at every alignment", () => {
  for (let offset = 0; offset < 4; offset++) {
    for (const len of [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 125, 126, 127, 1000, 65_537]) {
      const payload = new Uint8Array(len).map((_, i) => (i * 7 + offset) & 0xff);
      // A leading ping shifts where the data frame starts in the reader's buffer.
      const lead = frame(Opcode.Ping, "x".repeat(offset));
      const got: Uint8Array[] = [];
      const reader = new FrameReader({
        text: () => {},
        binary: (b) => got.push(b.slice()),
        ping: () => {},
        pong: () => {},
        close: () => {},
      }, { maxMessageBytes: 1 << 20 });
      reader.push(concat(lead, frame(Opcode.Binary, payload)));
      assert.deepEqual(got, [payload], `length ${len}, offset ${offset}`);
    }
  }
});

Deno.test("FrameReader reads into its own buffer with space() and advance()", () => {
  const { reader, events } = recorder();
  const bytes = concat(frame(Opcode.Text, "one"), frame(Opcode.Text, "two"));
  const space = reader.space();
  space.set(bytes);
  reader.advance(bytes.length);
  assert.deepEqual(events, ["text:one", "text:two"]);
  assert.equal(reader.closed, false);
});

Deno.test("FrameReader with framesPerParse hands on that many frames per parse, the rest on resume()", () => {
  const { reader, events } = recorder(1024, undefined, 2);
  const texts = ["a", "b", "c", "d", "e"];
  // The last frame is incomplete: it waits for its bytes, not for resume().
  const last = frame(Opcode.Text, "f");
  reader.push(concat(...texts.map((t) => frame(Opcode.Text, t)), last.subarray(0, 3)));
  assert.deepEqual(events, ["text:a", "text:b"]);
  assert.equal(reader.pending, true);
  reader.resume();
  assert.deepEqual(events, ["text:a", "text:b", "text:c", "text:d"]);
  assert.equal(reader.pending, true);
  reader.resume();
  assert.deepEqual(events.slice(4), ["text:e"]);
  assert.equal(reader.pending, false, "what is left is not a whole frame");
  reader.push(last.subarray(3));
  assert.deepEqual(events.slice(5), ["text:f"]);
  assert.equal(reader.pending, false);
});

import assert from "node:assert/strict";
import {
  encodeFrame,
  encodeLinesFrame,
  encodeTextFrame,
  FrameError,
  FrameParser,
  MessageAssembler,
  Opcode,
} from "./frame.ts";

const enc = new TextEncoder();

function unmask(frame: Uint8Array, headerLen: number): Uint8Array {
  const key = frame.subarray(headerLen - 4, headerLen);
  return frame.slice(headerLen).map((b, i) => b ^ key[i & 3]!);
}

Deno.test("encodeFrame() picks the 7, 16 or 64-bit length form and masks the payload", () => {
  const cases: [number, number, number][] = [
    // payload length, length byte, header length (with the 4-byte mask key)
    [0, 0, 6],
    [1, 1, 6],
    [7, 7, 6],
    [125, 125, 6],
    [131, 126, 8],
    [10_243, 126, 8],
    [126, 126, 8],
    [65535, 126, 8],
    [65536, 127, 14],
  ];
  for (const [len, lenByte, headerLen] of cases) {
    const payload = new Uint8Array(len).map((_, i) => i % 251);
    const frame = encodeFrame(Opcode.Binary, payload);
    assert.equal(frame.length, headerLen + len, `length ${len}`);
    assert.equal(frame[0], 0x82);
    assert.equal(frame[1]! & 0x7f, lenByte);
    assert.equal(frame[1]! & 0x80, 0x80, "mask bit");
    assert.deepEqual(unmask(frame, headerLen), payload);
  }
});

Deno.test("encodeTextFrame() writes the UTF-8 of ASCII and non-ASCII text of every length form", () => {
  const dec = new TextDecoder("utf-8", { fatal: true });
  for (const len of [0, 1, 125, 126, 8_000, 65_535, 65_536, 300_000]) {
    for (const text of ["x".repeat(len), "é".repeat(len >> 1) + "😀".repeat(len & 1)]) {
      const bytes = enc.encode(text);
      const frame = encodeTextFrame(text);
      const headerLen = bytes.length < 126 ? 6 : bytes.length < 65536 ? 8 : 14;
      assert.equal(frame.length, headerLen + bytes.length, `${text.length} units`);
      assert.equal(frame[0], 0x81, "FIN + text");
      assert.equal(frame[1]! & 0x80, 0x80, "mask bit");
      assert.equal(dec.decode(unmask(frame, headerLen)), text);
      const parsed = new FrameParser({ maxPayload: 1 << 20 });
      // The parser refuses masked frames (it reads a server's); the length fields are checked above.
      assert.throws(() => parsed.push(frame), (e) => e instanceof FrameError && e.code === 1002);
    }
  }
});

Deno.test("encodeLinesFrame() writes its lines with line feeds between, as one text frame", () => {
  const dec = new TextDecoder("utf-8", { fatal: true });
  const cases: string[][] = [
    [], // no line: an empty message
    ["a"],
    ["a", "b"],
    ["", "x", ""],
    ['{"type":"ping"}', "y".repeat(10_240), "z".repeat(70_000)],
    // Not all ASCII (in the first line, a middle one, the last): joined and encoded whole.
    ["é", "plain"],
    ["plain", "😀 and é", "plain again"],
    ["x".repeat(9_000), "tail ü"],
  ];
  for (const lines of cases) {
    const text = lines.join("\n");
    const bytes = enc.encode(text);
    const frame = encodeLinesFrame(lines);
    const headerLen = bytes.length < 126 ? 6 : bytes.length < 65536 ? 8 : 14;
    assert.equal(frame.length, headerLen + bytes.length, JSON.stringify(lines).slice(0, 40));
    assert.equal(frame[0], 0x81, "FIN + text");
    assert.equal(dec.decode(unmask(frame, headerLen)), text);
  }
});

Deno.test("encodeTextFrame() frames stay intact while later frames are encoded", () => {
  // Small frames share buffers: one still waiting to be written must never be overwritten.
  const frames = Array.from({ length: 2_000 }, (_, i) => {
    const text = `{"n":${i},"pad":"${"p".repeat(i % 300)}"}`;
    return { text, frame: encodeTextFrame(text), copy: undefined as Uint8Array | undefined };
  });
  for (const f of frames) f.copy = f.frame.slice();
  for (let i = 0; i < 2_000; i++) encodeTextFrame("z".repeat(i % 500));
  for (const f of frames) {
    assert.deepEqual(f.frame, f.copy);
    const headerLen = f.text.length < 126 ? 6 : 8;
    assert.equal(new TextDecoder().decode(unmask(f.frame, headerLen)), f.text);
  }
});

Deno.test("FrameParser reads frames split at every byte boundary", () => {
  const frames = [
    encodeFrame(Opcode.Text, enc.encode("hello"), false),
    encodeFrame(Opcode.Binary, new Uint8Array(300).fill(7), false),
    encodeFrame(Opcode.Binary, new Uint8Array(70_000).fill(9), false),
    encodeFrame(Opcode.Ping, enc.encode("p"), false),
  ];
  const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let off = 0;
  for (const f of frames) {
    all.set(f, off);
    off += f.length;
  }
  for (const step of [1, 3, 1000, all.length]) {
    const parser = new FrameParser({ maxPayload: 1 << 20 });
    const got = [];
    for (let i = 0; i < all.length; i += step) got.push(...parser.push(all.subarray(i, i + step)));
    assert.deepEqual(got.map((f) => [f.opcode, f.payload.length]), [[1, 5], [2, 300], [2, 70_000], [
      9,
      1,
    ]]);
    assert.equal(new TextDecoder().decode(got[0]!.payload), "hello");
    assert.ok(got[2]!.payload.every((b) => b === 9));
  }
});

Deno.test("FrameParser rejects what a server must not send", () => {
  const cases: [string, Uint8Array, number][] = [
    ["masked frame", encodeFrame(Opcode.Text, enc.encode("x"), true), 1002],
    ["reserved bit", new Uint8Array([0xc1, 0x00]), 1002],
    ["unknown opcode", new Uint8Array([0x83, 0x00]), 1002],
    ["long control frame", encodeFrame(Opcode.Ping, new Uint8Array(126), false), 1002],
    ["fragmented control frame", encodeFrame(Opcode.Ping, new Uint8Array(1), false, false), 1002],
    ["too big", encodeFrame(Opcode.Binary, new Uint8Array(2000), false), 1009],
  ];
  for (const [name, bytes, code] of cases) {
    const parser = new FrameParser({ maxPayload: 1000 });
    assert.throws(
      () => parser.push(bytes),
      (err) => err instanceof FrameError && err.code === code,
      name,
    );
  }
});

Deno.test("MessageAssembler joins fragments and enforces the size limit", () => {
  const a = new MessageAssembler({ maxMessageSize: 10 });
  assert.equal(
    a.add({ fin: false, opcode: Opcode.Binary, payload: new Uint8Array([1, 2]) }),
    undefined,
  );
  assert.deepEqual(
    a.add({ fin: true, opcode: Opcode.Continuation, payload: new Uint8Array([3]) }),
    new Uint8Array([1, 2, 3]),
  );
  assert.equal(
    a.add({ fin: false, opcode: Opcode.Text, payload: enc.encode("123456") }),
    undefined,
  );
  assert.throws(
    () => a.add({ fin: true, opcode: Opcode.Continuation, payload: enc.encode("789012") }),
    (err) => err instanceof FrameError && err.code === 1009,
  );
  const b = new MessageAssembler({ maxMessageSize: 10 });
  assert.throws(
    () => b.add({ fin: true, opcode: Opcode.Continuation, payload: enc.encode("x") }),
    (err) => err instanceof FrameError && err.code === 1002,
  );
  assert.throws(
    () => b.add({ fin: true, opcode: Opcode.Text, payload: new Uint8Array([0xff]) }),
    (err) => err instanceof FrameError && err.code === 1007,
  );
  // A real U+FFFD is valid text; invalid bytes next to one are still refused.
  const c = new MessageAssembler({ maxMessageSize: 100 });
  assert.equal(
    c.add({ fin: true, opcode: Opcode.Text, payload: enc.encode("a\uFFFDb") }),
    "a\uFFFDb",
  );
  assert.throws(
    () =>
      c.add({
        fin: true,
        opcode: Opcode.Text,
        payload: new Uint8Array([...enc.encode("\uFFFD"), 0xc3, 0x28]),
      }),
    (err) => err instanceof FrameError && err.code === 1007,
  );
});

Deno.test("every frame gets a fresh mask key, also across refills of the key pool", () => {
  const keys: string[] = [];
  for (let i = 0; i < 2_500; i++) {
    const frame = encodeTextFrame("same text");
    keys.push(Array.from(frame.subarray(2, 6)).join(","));
  }
  for (let i = 1; i < keys.length; i++) assert.notEqual(keys[i], keys[i - 1], `frame ${i}`);
  assert.ok(new Set(keys).size > 2_490, "keys are random, not a short cycle");
});

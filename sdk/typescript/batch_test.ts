import assert from "node:assert/strict";
import { BATCH_BYTES, FrameBatcher, lineSafe, offersProtocol, splitBatch } from "./batch.ts";

Deno.test("offersProtocol() matches a listed name exactly", () => {
  const cases: [string | null, boolean][] = [
    ["engine.batch.v1", true],
    ["chat, engine.batch.v1", true],
    ["chat,engine.batch.v1 ", true],
    ["ENGINE.BATCH.V1", false],
    ["engine.batch.v2", false],
    ["", false],
    [null, false],
  ];
  for (const [header, offered] of cases) {
    assert.equal(offersProtocol(header, "engine.batch.v1"), offered, String(header));
  }
});

Deno.test("lineSafe() turns JSON's whitespace line feeds into spaces and keeps its meaning", () => {
  const pretty = JSON.stringify({ a: [1, { b: "x\ny" }], c: null }, null, 2);
  const safe = lineSafe(pretty);
  assert.ok(!safe.includes("\n"));
  assert.deepEqual(JSON.parse(safe), JSON.parse(pretty));
  const plain = '{"a":1}';
  assert.equal(lineSafe(plain), plain);
});

Deno.test("splitBatch() returns the frames of a message in order and skips empty lines", () => {
  assert.deepEqual(splitBatch('{"a":1}'), ['{"a":1}']);
  assert.deepEqual(splitBatch('{"a":1}\n{"b":2}\n'), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(splitBatch('\n{"a":1}\n\n{"b":2}'), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(splitBatch(""), []);
});

Deno.test("splitBatch() skips lines of JSON whitespace only, as the engine does", () => {
  const cases: [message: string, frames: string[]][] = [
    ['{"a":1}\r\n\r\n{"b":2}\r\n', ['{"a":1}\r', '{"b":2}\r']],
    ['{"a":1}\n  \t \n{"b":2}', ['{"a":1}', '{"b":2}']],
    [" \r\n\t", []],
    ["\r", []],
    ["  ", []],
    ['\t{"a":1}\n', ['\t{"a":1}']],
  ];
  for (const [message, frames] of cases) {
    assert.deepEqual(splitBatch(message), frames, JSON.stringify(message));
  }
});

Deno.test("FrameBatcher sends the frames of one turn together, within BATCH_BYTES a message", async () => {
  const sent: string[] = [];
  const batcher = new FrameBatcher((text) => sent.push(text));
  batcher.push("a");
  batcher.push('{"x":\n1}');
  assert.equal(sent.length, 0, "nothing before the turn ends");
  assert.equal(batcher.pendingUnits, 1 + 8);
  await Promise.resolve();
  assert.deepEqual(sent, ['a\n{"x": 1}']);
  assert.equal(batcher.pendingUnits, 0);

  // Frames up to the limit share a message; a large one travels alone.
  sent.length = 0;
  const half = "h".repeat(BATCH_BYTES / 2 - 1);
  const big = "b".repeat(BATCH_BYTES + 10);
  for (const text of [half, half, half, big, "s1", "s2"]) batcher.push(text);
  await Promise.resolve();
  assert.deepEqual(sent.map((m) => m.split("\n").map((f) => f.charAt(0) + f.length)), [
    [`h${half.length}`, `h${half.length}`],
    [`h${half.length}`],
    [`b${big.length}`],
    ["s2", "s2"],
  ]);
  for (const message of sent) {
    assert.ok(
      message.length <= BATCH_BYTES || !message.includes("\n"),
      "over the limit only alone",
    );
  }
});

Deno.test("FrameBatcher.flush() sends at once (before a close) and clear() drops the queue", async () => {
  const sent: string[] = [];
  const batcher = new FrameBatcher((text) => sent.push(text));
  batcher.push("a");
  batcher.flush();
  assert.deepEqual(sent, ["a"]);
  batcher.push("b");
  batcher.clear();
  await Promise.resolve();
  assert.deepEqual(sent, ["a"]);
});

Deno.test("FrameBatcher makes pushed texts line-safe, unless told they already are", async () => {
  const pretty = JSON.stringify({ type: "ping", n: [1] }, null, 1);
  const sent: string[] = [];
  const checking = new FrameBatcher((text) => sent.push(text));
  checking.push(pretty);
  checking.push('{"type":"pong"}');
  await Promise.resolve();
  assert.deepEqual(sent.flatMap(splitBatch).map((f) => JSON.parse(f)), [
    { type: "ping", n: [1] },
    { type: "pong" },
  ]);
  // `lineFree`: the maker vouches for its texts (the engine's are JSON.stringify's, or built
  // of texts whose line feeds it replaced on receipt); they are passed on unread, so a text
  // that breaks the promise would split where it says.
  const trusted: string[] = [];
  const vouched = new FrameBatcher((text) => trusted.push(text), { lineFree: true });
  vouched.push('{"a":\n1}');
  vouched.push('{"b":2}');
  await Promise.resolve();
  assert.deepEqual(trusted, ['{"a":\n1}\n{"b":2}']);
});

Deno.test("FrameBatcher hands a message of several frames to sendLines unjoined, one frame to send", async () => {
  const texts: string[] = [];
  const lines: string[][] = [];
  const batcher = new FrameBatcher((text) => texts.push(text), {
    sendLines: (frames) => lines.push([...frames]),
  });
  batcher.push("a");
  await Promise.resolve();
  const big = "x".repeat(BATCH_BYTES - 3);
  batcher.push("b");
  batcher.push("c");
  batcher.push(big);
  batcher.push("d");
  await Promise.resolve();
  assert.deepEqual(texts, ["a"]);
  // Still within BATCH_BYTES a message: "b", "c" together; the large frame and "d" after.
  assert.deepEqual(lines, [["b", "c"], [big, "d"]]);
});

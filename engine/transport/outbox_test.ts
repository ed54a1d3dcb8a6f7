import assert from "node:assert/strict";
import { FrameParser, Opcode } from "../../sdk/typescript/websocket/frame.ts";
import { Outbox, PONG_BUDGET } from "./outbox.ts";

/**
 * Stands in for a connection's write side, to count writes and to take part
 * of the bytes or none: what a slow or stalled reader does to a real socket,
 * and which a real socket cannot be made to do on cue.
 */
class Writes {
  chunks: Uint8Array[] = [];
  /** Bytes each write takes at most. */
  take = Infinity;
  /** While set, writes wait for it. */
  gate: Promise<void> | undefined;
  fail = false;
  /** Each write takes a turn of the event loop. */
  slow = false;
  async write(p: Uint8Array): Promise<number> {
    if (this.gate) await this.gate;
    if (this.slow) await turn();
    if (this.fail) throw new Deno.errors.BrokenPipe("peer gone");
    const n = Math.min(p.length, this.take);
    this.chunks.push(p.slice(0, n));
    return n;
  }
  /** The frames written so far, as [opcode, text]. */
  frames(): [number, string][] {
    const parser = new FrameParser({ maxPayload: 1 << 24 });
    const dec = new TextDecoder();
    return this.chunks.flatMap((c) => parser.push(c)).map((f) => [f.opcode, dec.decode(f.payload)]);
  }
}

const turn = () => new Promise((r) => setTimeout(r, 0));

Deno.test("Outbox writes the frames of one turn with one write", async () => {
  const writes = new Writes();
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error") });
  outbox.text("one");
  outbox.text("two");
  outbox.frame(Opcode.Pong, new TextEncoder().encode("p"));
  assert.equal(outbox.bufferedAmount, 5 + 5 + 3);
  assert.equal(writes.chunks.length, 0, "nothing is written before the turn ends");
  await outbox.drained();
  assert.equal(writes.chunks.length, 1);
  assert.equal(outbox.bufferedAmount, 0);
  outbox.text("three");
  await outbox.drained();
  assert.equal(writes.chunks.length, 2);
  assert.deepEqual(writes.frames(), [
    [Opcode.Text, "one"],
    [Opcode.Text, "two"],
    [Opcode.Pong, "p"],
    [Opcode.Text, "three"],
  ]);
});

Deno.test("Outbox encodes text of every length form, with the header sized for its UTF-8", async () => {
  const texts = [
    "",
    "x".repeat(125),
    "x".repeat(126),
    "é".repeat(62) + "x", // 125 bytes
    "é".repeat(63), // 63 units, 126 bytes: the header grows from 2 to 4 bytes
    "x".repeat(65_535),
    "😀".repeat(16_384), // 65,536 bytes in 32,768 units: from 4 to 10 bytes
    "é".repeat(40_000),
    "x".repeat(70_000),
  ];
  // All in one buffer, and each alone in a buffer that must grow while the text is encoded.
  const writes = new Writes();
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error"), bufferBytes: 16 });
  for (const t of texts) outbox.text(t);
  await outbox.drained();
  assert.deepEqual(writes.frames(), texts.map((t) => [Opcode.Text, t]));
  for (const t of [...texts, "é✓".repeat(450_000)]) {
    const alone = new Writes();
    const outbox = new Outbox(alone, { onError: () => assert.fail("no error"), bufferBytes: 16 });
    outbox.text("a");
    outbox.text(t);
    await outbox.drained();
    assert.deepEqual(alone.frames(), [[Opcode.Text, "a"], [Opcode.Text, t]], `${t.length} units`);
  }
});

Deno.test("Outbox finishes partial writes, counting what is left as bufferedAmount", async () => {
  const writes = new Writes();
  writes.take = 5;
  writes.slow = true;
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error") });
  outbox.text("a".repeat(40));
  const total = outbox.bufferedAmount;
  assert.equal(total, 42);
  await turn();
  assert.ok(outbox.bufferedAmount < total && outbox.bufferedAmount > 0);
  await outbox.drained();
  assert.equal(outbox.bufferedAmount, 0);
  assert.equal(writes.chunks.length, 9);
  assert.deepEqual(writes.frames(), [[Opcode.Text, "a".repeat(40)]]);
});

Deno.test("Outbox keeps what a stalled peer does not read, in order, and sends it when it reads again", async () => {
  const writes = new Writes();
  let release = () => {};
  writes.gate = new Promise((r) => release = r);
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error") });
  outbox.text("first");
  await turn();
  for (let i = 0; i < 100; i++) {
    outbox.text(`m${i}`);
    if (i % 10 === 0) await turn();
  }
  assert.equal(outbox.bufferedAmount, 7 + 10 * 4 + 90 * 5, "the backlog grows");
  assert.equal(writes.chunks.length, 0);
  writes.gate = undefined;
  release();
  await outbox.drained();
  assert.equal(writes.chunks.length, 2, "the first batch, then all that waited behind it");
  assert.deepEqual(
    writes.frames().map(([, t]) => t),
    ["first", ...Array.from({ length: 100 }, (_, i) => `m${i}`)],
  );
});

Deno.test("Outbox reports a failed write once and writes nothing after it", async () => {
  const writes = new Writes();
  writes.fail = true;
  const errors: unknown[] = [];
  const outbox = new Outbox(writes, { onError: (e) => errors.push(e) });
  outbox.text("lost");
  await outbox.drained();
  outbox.text("also lost");
  await turn();
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof Deno.errors.BrokenPipe);
  assert.equal(writes.chunks.length, 0);
});

Deno.test("Outbox.pong() answers every ping, and past PONG_BUDGET bytes waiting only the latest", async () => {
  const enc = new TextEncoder();
  const writes = new Writes();
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error") });
  for (let i = 0; i < 10; i++) outbox.pong(enc.encode(`${i}`));
  await outbox.drained();
  assert.deepEqual(writes.frames().map(([, p]) => p), [
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
  ]);

  // A stalled peer: the first write waits, the pongs behind it stay within the budget.
  writes.chunks = [];
  let open!: () => void;
  writes.gate = new Promise((resolve) => open = resolve);
  const payload = (i: number) => enc.encode(`${i}`.padStart(125, "."));
  const budget = Math.ceil(PONG_BUDGET / 127);
  for (let i = 0; i < budget * 10; i++) outbox.pong(payload(i));
  await turn();
  for (let i = budget * 10; i < budget * 20; i++) outbox.pong(payload(i));
  assert.ok(outbox.bufferedAmount <= 2 * (PONG_BUDGET + 2 * 127), `${outbox.bufferedAmount} bytes`);
  writes.gate = undefined;
  open();
  await outbox.drained();
  const sent = writes.frames().map(([, p]) => Number(p.replace(/^\.+/, "")));
  // The first pongs of each batch, then one for the latest ping of the batch.
  assert.deepEqual(sent, [
    ...Array.from({ length: budget }, (_, i) => i),
    budget * 10 - 1,
    ...Array.from({ length: budget }, (_, i) => budget * 10 + i),
    budget * 20 - 1,
  ]);
});

Deno.test("Outbox sends no pong after a close frame, owed or not", async () => {
  const writes = new Writes();
  const outbox = new Outbox(writes, { onError: () => assert.fail("no error") });
  const ping = new Uint8Array(125);
  for (let i = 0; i < 2 * PONG_BUDGET / 127; i++) outbox.pong(ping);
  outbox.frame(Opcode.Close, new Uint8Array([0x03, 0xe8]));
  await outbox.drained();
  const frames = writes.frames();
  assert.equal(frames.at(-1)![0], Opcode.Close);
  assert.ok(frames.length > 1 && frames.length < 2 * PONG_BUDGET / 127, `${frames.length} frames`);
});

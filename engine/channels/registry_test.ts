import assert from "node:assert/strict";
import { type Channel, ChannelBroken, type Direction, MAX_QUEUED_BYTES } from "./channel.ts";
import { CHANNEL_TTL_MS, ChannelRegistry, type Reservation } from "./registry.ts";

function registry(clock = { now: 0 }) {
  let n = 0;
  return new ChannelRegistry({ now: () => clock.now, newId: () => `id${++n}` });
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("ChannelRegistry.create() checks buffer_size: default 64, 1 to 1024", () => {
  const r = registry();
  assert.equal(r.create().bufferSize, 64);
  assert.equal(r.create({ bufferSize: 1024 }).bufferSize, 1024);
  for (const bad of [0, 1025, 1.5, -1, NaN]) {
    assert.throws(
      () => r.create({ bufferSize: bad }),
      /buffer_size must be an integer from 1 to 1024/,
    );
  }
});

Deno.test("ChannelRegistry.claim() refuses an unknown id, a wrong key and an end claimed twice", () => {
  const r = registry();
  const c = r.create();
  const cases: [string, string, Direction, string | undefined][] = [
    ["nope", c.key, "read", "CHANNEL_NOT_FOUND: not found: it never existed"],
    [c.id, "wrong", "read", "CHANNEL_NOT_FOUND: not found: wrong access key"],
    [c.id, c.key, "read", undefined],
    [
      c.id,
      c.key,
      "read",
      "CHANNEL_CLAIMED: cannot be opened to read: its read end is claimed already",
    ],
    [c.id, c.key, "write", undefined],
    [c.id, c.key, "write", "CHANNEL_CLAIMED: cannot be opened to write"],
  ];
  for (const [id, key, dir, expected] of cases) {
    const outcome = r.claim(id, key, dir);
    if (expected === undefined) {
      assert.equal(outcome.kind, "claimed", `${id} ${dir}`);
      continue;
    }
    assert.equal(outcome.kind, "refused");
    if (outcome.kind !== "refused") continue;
    const [code, text] = expected.split(": ", 2) as [string, string];
    assert.equal(outcome.code, code);
    assert.equal(outcome.status, code === "CHANNEL_CLAIMED" ? 409 : 404);
    assert.ok(outcome.message.includes(text), outcome.message);
  }
});

Deno.test("Channel: frames arrive in order, text and binary, then null at the end", async () => {
  const c = registry().create({ bufferSize: 4 });
  assert.equal(c.push("hello"), "ok");
  assert.equal(c.push(bytes("ab")), "ok");
  const waiting = [c.read(), c.read()];
  assert.deepEqual(await Promise.all(waiting), ["hello", bytes("ab")]);
  const next = c.read(); // waits for the writer
  c.push(bytes("c"));
  assert.deepEqual(await next, bytes("c"));
  c.endWrite();
  assert.equal(await c.read(), null);
});

Deno.test("Channel: the writer is held at buffer_size frames until the reader takes one", async () => {
  const c = registry().create({ bufferSize: 2 });
  assert.equal(c.push("1"), "ok");
  assert.equal(c.push("2"), "full");
  let room = false;
  const waiting = c.whenRoom().then(() => room = true);
  await Promise.resolve();
  assert.equal(room, false);
  assert.equal(await c.read(), "1");
  await waiting;
  assert.equal(room, true);
});

Deno.test("Channel: a writer breaking off rejects the read after the queued frames", async () => {
  const c = registry().create();
  c.push("queued");
  c.endWrite("its writer disconnected");
  assert.equal(await c.read(), "queued");
  await assert.rejects(c.read(), ChannelBroken);
});

Deno.test("Channel: the reader going drops the queue, frees the writer and tells it", async () => {
  const c = registry().create({ bufferSize: 1 });
  let told = 0;
  c.onReaderGone = () => told++;
  assert.equal(c.push("x"), "full");
  const room = c.whenRoom();
  c.endRead();
  await room;
  assert.equal(told, 1);
  assert.equal(c.push("y"), "gone");
  assert.equal(c.queued, 0);
});

Deno.test("ChannelRegistry forgets a channel once both ends are done", async () => {
  const r = registry();
  const c = r.create();
  r.claim(c.id, c.key, "read");
  r.claim(c.id, c.key, "write");
  c.endWrite();
  assert.equal(r.size, 1);
  assert.equal(await c.read(), null);
  c.endRead();
  assert.equal(r.size, 0);
});

Deno.test("ChannelRegistry.sweep() removes channels with an end unclaimed after 5 minutes", () => {
  const clock = { now: 0 };
  const r = registry(clock);
  const unclaimed = r.create();
  const half = r.create();
  const both = r.create();
  r.claim(half.id, half.key, "read");
  r.claim(both.id, both.key, "read");
  r.claim(both.id, both.key, "write");
  clock.now = CHANNEL_TTL_MS - 1;
  assert.equal(r.sweep(), 0);
  clock.now = CHANNEL_TTL_MS;
  assert.equal(r.sweep(), 2);
  assert.equal(r.get(unclaimed.id), undefined);
  assert.equal(r.get(half.id), undefined);
  assert.equal(r.get(both.id), both);
});

Deno.test("ChannelRegistry.removeOwnedBy() removes a connection's channels nobody opened", () => {
  const r = registry();
  const idle = r.create({ owner: "w1" });
  const opened = r.create({ owner: "w1" });
  const other = r.create({ owner: "w2" });
  r.claim(opened.id, opened.key, "write");
  assert.equal(r.removeOwnedBy("w1"), 1);
  assert.equal(r.get(idle.id), undefined);
  assert.equal(r.get(opened.id), opened);
  assert.equal(r.get(other.id), other);
});

Deno.test("ChannelRegistry reservations make their channel on the first claim", () => {
  const r = registry();
  let made = 0;
  const reservation: Reservation = {
    key: "k",
    refusal: (_id, dir) => dir === "write" ? "the engine writes it" : undefined,
    open(id, dir): Channel {
      made++;
      const channel = r.add({ id, key: "k", bufferSize: 4 });
      channel.claim(dir);
      return channel;
    },
  };
  const reserved = new Set(["res-1"]);
  const unregister = r.reserveSource("res-", (id) => reserved.has(id) ? reservation : undefined);
  assert.equal(r.claim("res-2", "k", "read").kind, "refused"); // not in the source's table
  assert.equal(r.claim("other", "k", "read").kind, "refused"); // no source for it
  assert.equal(r.size, 0);
  const write = r.claim("res-1", "k", "write");
  assert.equal(write.kind, "refused");
  assert.equal(made, 0);
  assert.equal(r.claim("res-1", "bad key", "read").kind, "refused");
  assert.equal(r.claim("res-1", "k", "read").kind, "claimed");
  assert.equal(made, 1);
  assert.equal(r.claim("res-1", "k", "read").kind, "refused"); // the channel now answers
  reserved.delete("res-1");
  r.remove("res-1", "request ended");
  assert.equal(r.claim("res-1", "k", "read").kind, "refused");
  assert.equal(r.size, 0);
  unregister();
  reserved.add("res-1");
  assert.equal(r.claim("res-1", "k", "read").kind, "refused"); // the source is gone
});

Deno.test("ChannelRegistry.remove() tells a writer still there why, and its reader sees it broken", async () => {
  const cases: { name: string; readerGone: boolean; writerEnded: boolean; told: unknown[] }[] = [
    { name: "both ends open", readerGone: false, writerEnded: false, told: ["request ended"] },
    { name: "the reader closed", readerGone: true, writerEnded: false, told: [undefined] },
    { name: "the writer ended", readerGone: false, writerEnded: true, told: [] },
  ];
  for (const { name, readerGone, writerEnded, told } of cases) {
    const r = registry();
    const c = r.create();
    const seen: unknown[] = [];
    c.onReaderGone = (removed) => seen.push(removed);
    c.push("queued");
    if (readerGone) c.endRead();
    if (writerEnded) c.endWrite();
    r.remove(c.id, "request ended");
    assert.deepEqual(seen, told, name);
    assert.equal(r.size, 0, name);
    if (!readerGone && !writerEnded) await assert.rejects(c.read(), /request ended/, name);
  }
});

Deno.test("Channel: the writer is held at maxQueuedBytes until the reader takes enough", async () => {
  const c = new ChannelRegistry({ maxQueuedBytes: 10 }).create({ bufferSize: 1024 });
  assert.equal(c.maxQueuedBytes, 10);
  assert.equal(c.push(new Uint8Array(6)), "ok");
  assert.equal(c.push(new Uint8Array(6)), "full"); // 12 bytes: a frame is queued whole
  let room = false;
  const waiting = c.whenRoom().then(() => room = true);
  await Promise.resolve();
  assert.equal(room, false);
  await c.read(); // 6 bytes left: room again
  await waiting;
  assert.equal(room, true);
  assert.equal(new ChannelRegistry().create().maxQueuedBytes, MAX_QUEUED_BYTES);
});

Deno.test("Channel: a reader leaving before any writer claimed it ends the channel", () => {
  const r = registry();
  const c = r.create({ owner: "w1" });
  assert.equal(r.claim(c.id, c.key, "read").kind, "claimed");
  c.endRead();
  assert.equal(r.size, 0);
  assert.equal(r.limits.count("w1"), 0);
  const late = r.claim(c.id, c.key, "write");
  assert.equal(late.kind === "refused" && late.code, "CHANNEL_NOT_FOUND");
});

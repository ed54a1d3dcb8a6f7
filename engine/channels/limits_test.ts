import assert from "node:assert/strict";
import { ChannelLimitError } from "./limits.ts";
import { ChannelRegistry, type Reservation } from "./registry.ts";

function registry(limits: { maxPerWorker?: number; maxTotal?: number }, clock = { now: 0 }) {
  let n = 0;
  return new ChannelRegistry({ now: () => clock.now, newId: () => `id${++n}`, limits });
}

function refusal(fn: () => unknown): ChannelLimitError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ChannelLimitError) return e;
    throw e;
  }
  throw new Error("Not refused");
}

Deno.test("ChannelRegistry.create() refuses a worker past its limit, not the others", () => {
  const r = registry({ maxPerWorker: 2, maxTotal: 10 });
  r.create({ owner: "w1" });
  r.create({ owner: "w1" });
  const e = refusal(() => r.create({ owner: "w1" }));
  assert.deepEqual({ scope: e.scope, owner: e.owner, count: e.count, limit: e.limit }, {
    scope: "worker",
    owner: "w1",
    count: 2,
    limit: 2,
  });
  assert.equal(
    e.message,
    'Cannot create a data channel for worker "w1": it has 2 channels alive, its limit ' +
      "(channels.max_per_worker is 2): a channel counts until both its ends are done",
  );
  assert.equal(r.size, 2);
  r.create({ owner: "w2" });
  assert.equal(r.limits.count("w2"), 1);
});

Deno.test("ChannelRegistry.create() refuses everyone past the total, also without an owner", () => {
  const r = registry({ maxPerWorker: 5, maxTotal: 3 });
  r.create({ owner: "w1" });
  r.create({ owner: "w2" });
  r.create();
  for (const owner of ["w1", "w3", undefined]) {
    const e = refusal(() => r.create(owner === undefined ? {} : { owner }));
    assert.equal(e.scope, "engine");
    assert.equal(e.count, 3);
    assert.match(
      e.message,
      /the engine holds 3 created channels, its limit \(channels.max_total is 3\)$/,
    );
  }
  assert.equal(r.limits.count(), 3);
});

Deno.test("ChannelRegistry gives a place back however a channel goes", async (t) => {
  const clock = { now: 0 };
  const ways: [string, (r: ChannelRegistry, id: string, key: string) => void][] = [
    ["both ends done", (r, id, key) => {
      r.claim(id, key, "read");
      r.claim(id, key, "write");
      r.get(id)!.endWrite();
      r.get(id)!.endRead();
    }],
    ["removed", (r, id) => r.remove(id, "gone")],
    ["removed with its departed owner", (r) => r.removeOwnedBy("w1")],
    ["expired", (r) => {
      clock.now += 5 * 60_000;
      r.sweep();
    }],
  ];
  for (const [name, end] of ways) {
    await t.step(name, () => {
      const r = registry({ maxPerWorker: 1 }, clock);
      const c = r.create({ owner: "w1" });
      refusal(() => r.create({ owner: "w1" }));
      end(r, c.id, c.key);
      assert.equal(r.limits.count("w1"), 0);
      assert.equal(r.limits.count(), 0);
      r.create({ owner: "w1" });
    });
  }
});

Deno.test("ChannelRegistry does not count a reservation's channels (engine-http's)", () => {
  const r = registry({ maxPerWorker: 1, maxTotal: 1 });
  r.create({ owner: "w1" });
  const reservation: Reservation = {
    key: "k",
    refusal: () => undefined,
    open: (id, dir) => {
      const channel = r.add({ id, key: "k", bufferSize: 4 });
      channel.claim(dir);
      return channel;
    },
  };
  r.reserveSource("res-", () => reservation);
  for (let i = 0; i < 100; i++) assert.equal(r.claim(`res-${i}`, "k", "read").kind, "claimed");
  assert.equal(r.size, 101);
  assert.equal(r.limits.count(), 1);
  r.remove("res-0", "request ended");
  assert.equal(r.limits.count(), 1);
});

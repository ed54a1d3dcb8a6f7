import assert from "node:assert/strict";
import { describePredicate, Waiters } from "./waiters.ts";

type Item = { n: number };

function waiters(seen: Item[], show?: number) {
  return new Waiters<Item>({
    item: "frame",
    seen: () => seen,
    timeoutMs: 5000,
    ...(show !== undefined && { show }),
  });
}

Deno.test("Waiters.deliver() hands an item to the first accepting wait, or with all to every one", async () => {
  const w = waiters([]);
  const first = w.wait((i) => i.n > 0);
  const second = w.wait((i) => i.n > 0);
  assert.equal(w.deliver({ n: 0 }), false);
  assert.equal(w.deliver({ n: 1 }), true);
  assert.deepEqual(await first, { n: 1 });
  assert.equal(w.deliver({ n: 2 }, { all: true }), true);
  assert.deepEqual(await second, { n: 2 });
  assert.equal(w.deliver({ n: 3 }, { all: true }), false, "no wait is left");

  const a = w.wait(() => true);
  const b = w.wait(() => true);
  w.deliver({ n: 4 }, { all: true });
  assert.deepEqual(await Promise.all([a, b]), [{ n: 4 }, { n: 4 }]);
});

Deno.test("Waiters.wait() times out naming what it waited for and the last items seen", async (t) => {
  const cases: {
    name: string;
    seen: Item[];
    show?: number;
    description?: string;
    message: string | RegExp;
  }[] = [
    {
      name: "a description",
      seen: [{ n: 1 }],
      description: 'the result of "math::add"',
      message: 'Timed out after 1ms waiting for the result of "math::add": the frame seen:\n' +
        '  {"n":1}',
    },
    {
      name: "the predicate's source, nothing seen",
      seen: [],
      // The source as Deno runs it: transpiled, so its spacing may differ from the file's.
      message:
        /^Timed out after 1ms waiting for a frame matching \(i\)\s*=>\s*i\.n === 42: no frame has arrived$/,
    },
    {
      name: "only the last items",
      seen: [{ n: 1 }, { n: 2 }, { n: 3 }],
      show: 2,
      description: "n 42",
      message: "Timed out after 1ms waiting for n 42: the last 2 of 3 frames seen:\n" +
        '  {"n":2}\n  {"n":3}',
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const w = waiters(c.seen, c.show);
      const error = await w.wait((i) => i.n === 42, {
        timeoutMs: 1,
        ...(c.description !== undefined && { description: c.description }),
      }).then(() => assert.fail("the wait did not time out"), (e: Error) => e);
      if (typeof c.message === "string") assert.equal(error.message, c.message);
      else assert.match(error.message, c.message);
      assert.equal(w.deliver({ n: 42 }), false, "a timed-out wait is gone");
    });
  }
});

Deno.test("Waiters.wait() times out showing what `also` adds after the items, if anything", async (t) => {
  const cases: { name: string; also: string; tail: string }[] = [
    { name: "something added", also: "its stderr:\n  boom", tail: "\nits stderr:\n  boom" },
    { name: "nothing added", also: "", tail: "" },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const w = new Waiters<Item>({
        item: "frame",
        seen: () => [{ n: 1 }],
        also: () => c.also,
        timeoutMs: 1,
      });
      await assert.rejects(w.wait(() => false, { description: "n 42" }), {
        message: `Timed out after 1ms waiting for n 42: the frame seen:\n  {"n":1}${c.tail}`,
      });
    });
  }
});

Deno.test({
  name: "Waiters.rejectAll() rejects every pending wait at once and clears its time-out",
  // The op sanitizer fails the test if a wait's timer is left running.
  sanitizeOps: true,
  fn: async () => {
    const w = waiters([]);
    const pending = [w.wait(() => true), w.wait(() => true)];
    w.rejectAll(new Error("The source ended"));
    for (const p of pending) await assert.rejects(p, new Error("The source ended"));
    assert.equal(w.deliver({ n: 1 }), false);
  },
});

Deno.test({
  name: "Waiters.rejectAll() can make each wait's error from what it waits for",
  sanitizeOps: true,
  fn: async () => {
    const w = waiters([]);
    const described = w.wait(() => true, { description: 'the result of "math::add"' });
    const bare = w.wait((i) => i.n === 7);
    w.rejectAll((what) => new Error(`Stopped waiting for ${what}: the source ended`));
    await assert.rejects(described, {
      message: 'Stopped waiting for the result of "math::add": the source ended',
    });
    await assert.rejects(
      bare,
      /^Error: Stopped waiting for a frame matching \(i\)\s*=>\s*i\.n === 7: the source ended$/,
    );
  },
});

Deno.test("describePredicate() puts the source on one line and shortens it to 120 characters", () => {
  const seen = describePredicate((f: Item) =>
    f.n === 1 ||
    f.n === 2
  );
  assert.match(seen, /^\(f\)\s*=>\s*f\.n === 1 \|\| f\.n === 2$/);
  const long = describePredicate((f: Item) =>
    f.n === 1 || f.n === 2 || f.n === 3 || f.n === 4 || f.n === 5 || f.n === 6 || f.n === 7 ||
    f.n === 8 || f.n === 9 || f.n === 10
  );
  assert.equal(long.length, 120);
  assert.ok(long.endsWith("…"));
});

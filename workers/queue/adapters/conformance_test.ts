/**
 * One suite of cases for the QueueStore contract, run against every adapter:
 * memory, SQLite (in a temporary folder) and Redis (a real `redis-server`
 * started here on a free port). Times are plain numbers chosen by the cases:
 * stores never read a clock.
 */

import assert from "node:assert/strict";
import { onEveryQueueStore, type QueueBackend, type QueueCase } from "./_testing.ts";
import type { NewMessage, QueueStore } from "./store.ts";

type Backend = QueueBackend;

type Case = QueueCase;

const T0 = 1_700_000_000_000;
const ERROR = { code: "invocation_failed", message: "boom" };

async function opened(backend: Backend, stores: QueueStore[]): Promise<QueueStore> {
  const store = await backend.open();
  stores.push(store);
  return store;
}

function message(id: string, overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    id,
    queue: "jobs",
    functionId: "orders::process",
    dataText: JSON.stringify({ id }),
    enqueuedAt: T0,
    ...overrides,
  };
}

/** Makes dead letters of queue "jobs" that failed at the given times. */
async function buried(store: QueueStore, letters: [id: string, failedAt: number][]) {
  for (const [id] of letters) await store.enqueue(message(id));
  const claimed = await store.claim("jobs", T0, letters.length, T0 + 100);
  assert.equal(claimed.length, letters.length);
  for (const [id, failedAt] of letters) {
    const lease = claimed.find((m) => m.id === id)!.lease;
    assert.equal(
      await store.bury("jobs", id, lease, { attempts: 1, lastError: ERROR, failedAt }),
      true,
    );
  }
}

/** Ids whose code point order differs from JavaScript's `<` (UTF-16 units): "\uff61" < "\u{1f600}". */
const TIED = ["B", "a", "\u00e9", "\uff61", "\u{1f600}"];

const cases: Record<string, Case> = {
  "enqueue() stores a message that claim() hands out with its payload and metadata": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    const data = { name: "Ada", tags: ["a", "é", "\u{1f600}"], n: 1.5, deep: [null, { x: true }] };
    assert.equal(
      await store.enqueue(message("m1", {
        dataText: JSON.stringify(data),
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        baggage: "k=v",
      })),
      true,
    );
    const [claimed, ...rest] = await store.claim("jobs", T0, 10, T0 + 1000);
    assert.deepEqual(rest, []);
    assert.ok(claimed);
    const { lease, ...without } = claimed;
    assert.equal(typeof lease, "string");
    assert.deepEqual(without, {
      id: "m1",
      queue: "jobs",
      functionId: "orders::process",
      enqueuedAt: T0,
      attempts: 0,
      data,
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      baggage: "k=v",
    });
  },

  "every kind of JSON payload comes back unchanged": async (backend, stores) => {
    const store = await opened(backend, stores);
    const payloads = [null, 0, -1.25e-7, "text", true, [], {}, [1, [2, [3]]], 12345678901234];
    for (const [i, p] of payloads.entries()) {
      await store.enqueue(message(`p${i}`, { dataText: JSON.stringify(p), enqueuedAt: T0 + i }));
    }
    const claimed = await store.claim("jobs", T0 + 100, 100, T0 + 1000);
    assert.deepEqual(claimed.map((m) => m.data), payloads);
  },

  "enqueue() of an id already in the queue answers false and keeps the first": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.equal(await store.enqueue(message("m1")), true);
    assert.equal(await store.enqueue(message("m1", { dataText: '"second"' })), false);
    const claimed = await store.claim("jobs", T0, 10, T0 + 1000);
    assert.deepEqual(claimed.map((m) => m.data), [{ id: "m1" }]);
    // The same id in another queue is another message.
    assert.equal(await store.enqueue(message("m1", { queue: "other" })), true);
  },

  "claim() takes the earliest due first, up to the limit, and nothing not yet due": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    for (const [id, at] of [["c", 30], ["a", 10], ["b", 20], ["late", 500]] as const) {
      await store.enqueue(message(id, { enqueuedAt: T0 + at }));
    }
    const first = await store.claim("jobs", T0 + 100, 2, T0 + 1000);
    assert.deepEqual(first.map((m) => m.id), ["a", "b"]);
    const second = await store.claim("jobs", T0 + 100, 10, T0 + 1000);
    assert.deepEqual(second.map((m) => m.id), ["c"]);
    assert.deepEqual(await store.claim("jobs", T0 + 100, 10, T0 + 1000), []);
    assert.deepEqual(await store.claim("jobs", T0 + 100, 0, T0 + 1000), []);
    assert.deepEqual(await store.claim("nothing-here", T0 + 100, 10, T0 + 1000), []);
  },

  "a claimed message is hidden until its lease ends, then claimable with a new lease": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    await store.enqueue(message("m1"));
    const [first] = await store.claim("jobs", T0, 10, T0 + 1000);
    assert.deepEqual(await store.claim("jobs", T0 + 999, 10, T0 + 2000), []);
    const [second] = await store.claim("jobs", T0 + 1000, 10, T0 + 2000);
    assert.ok(first && second);
    assert.notEqual(second.lease, first.lease);
    assert.equal(second.attempts, 0, "an expired lease is not a failed attempt");
    assert.equal(await store.ack("jobs", "m1", first.lease), false, "a lost lease cannot ack");
    assert.equal(
      await store.reschedule("jobs", "m1", first.lease, { attempts: 1, visibleAt: T0 }),
      false,
    );
    assert.equal(
      await store.bury("jobs", "m1", first.lease, { attempts: 1, lastError: ERROR, failedAt: T0 }),
      false,
    );
    assert.equal(await store.ack("jobs", "m1", second.lease), true);
    assert.equal(await store.ack("jobs", "m1", second.lease), false);
    assert.deepEqual(await store.claim("jobs", T0 + 5000, 10, T0 + 6000), []);
  },

  "reschedule() releases a message with its attempts and last error": async (backend, stores) => {
    const store = await opened(backend, stores);
    await store.enqueue(message("m1"));
    const [claimed] = await store.claim("jobs", T0, 10, T0 + 1000);
    assert.ok(claimed);
    assert.equal(
      await store.reschedule("jobs", "m1", claimed.lease, {
        attempts: 1,
        visibleAt: T0 + 50,
        lastError: ERROR,
      }),
      true,
    );
    assert.deepEqual(await store.claim("jobs", T0 + 49, 10, T0 + 1000), []);
    const [again] = await store.claim("jobs", T0 + 50, 10, T0 + 1000);
    assert.ok(again);
    assert.equal(again.attempts, 1);
    assert.deepEqual(again.lastError, ERROR);
    // Without an error the last one is cleared.
    await store.reschedule("jobs", "m1", again.lease, { attempts: 1, visibleAt: T0 });
    const [third] = await store.claim("jobs", T0 + 60, 10, T0 + 1000);
    assert.equal(third?.lastError, undefined);
  },

  "bury() makes a dead letter with its last error, oldest failure first": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    await store.enqueue(
      message("m1", { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
    );
    await store.enqueue(message("m2", { enqueuedAt: T0 + 1 }));
    const claimed = await store.claim("jobs", T0 + 10, 10, T0 + 1000);
    assert.equal(claimed.length, 2);
    const [m1, m2] = claimed as [typeof claimed[0] & object, typeof claimed[0] & object];
    const other = { code: "invocation_timeout", message: "late" };
    assert.equal(
      await store.bury("jobs", "m2", m2.lease, {
        attempts: 3,
        lastError: other,
        failedAt: T0 + 20,
      }),
      true,
    );
    assert.equal(
      await store.bury("jobs", "m1", m1.lease, {
        attempts: 5,
        lastError: ERROR,
        failedAt: T0 + 30,
      }),
      true,
    );
    assert.deepEqual(await store.claim("jobs", T0 + 10_000, 10, T0 + 20_000), []);
    const { letters, total } = await store.deadLetters("jobs", 10);
    assert.equal(total, 2);
    assert.deepEqual(letters, [
      {
        id: "m2",
        queue: "jobs",
        functionId: "orders::process",
        enqueuedAt: T0 + 1,
        attempts: 3,
        data: { id: "m2" },
        lastError: other,
        failedAt: T0 + 20,
      },
      {
        id: "m1",
        queue: "jobs",
        functionId: "orders::process",
        enqueuedAt: T0,
        attempts: 5,
        data: { id: "m1" },
        lastError: ERROR,
        failedAt: T0 + 30,
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      },
    ]);
    // The count is of every letter, not of the page's.
    const first = await store.deadLetters("jobs", 1);
    assert.deepEqual([first.letters.map((d) => d.id), first.total], [["m2"], 2]);
    assert.deepEqual(await store.deadLetters("other", 10), { letters: [], total: 0 });
    assert.equal(await store.enqueue(message("m1")), false, "a dead letter's id stays taken");
  },

  "counts() tells ready, in flight and dead apart; an expired lease counts as depth": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.deepEqual(await store.counts("jobs", T0), { depth: 0, inFlight: 0, deadLetters: 0 });
    for (const id of ["a", "b", "c", "d"]) await store.enqueue(message(id));
    const [a, b] = await store.claim("jobs", T0, 2, T0 + 1000);
    assert.ok(a && b);
    assert.deepEqual(await store.counts("jobs", T0 + 1), { depth: 2, inFlight: 2, deadLetters: 0 });
    await store.bury("jobs", a.id, a.lease, { attempts: 1, lastError: ERROR, failedAt: T0 + 2 });
    assert.deepEqual(await store.counts("jobs", T0 + 3), { depth: 2, inFlight: 1, deadLetters: 1 });
    assert.deepEqual(await store.counts("jobs", T0 + 1000), {
      depth: 3,
      inFlight: 0,
      deadLetters: 1,
    });
  },

  "nextDue() is the earliest due time of a live message, a lease's end included": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.equal(await store.nextDue("jobs"), undefined);
    await store.enqueue(message("a", { enqueuedAt: T0 + 5 }));
    await store.enqueue(message("b", { enqueuedAt: T0 + 9 }));
    assert.equal(await store.nextDue("jobs"), T0 + 5);
    await store.claim("jobs", T0 + 5, 1, T0 + 700);
    assert.equal(await store.nextDue("jobs"), T0 + 9);
    const [b] = await store.claim("jobs", T0 + 9, 1, T0 + 800);
    assert.equal(await store.nextDue("jobs"), T0 + 700);
    await store.ack("jobs", "b", b!.lease);
    assert.equal(await store.nextDue("jobs"), T0 + 700);
  },

  "queues() lists every queue that held a message, and queues do not mix": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.deepEqual(await store.queues(), []);
    await store.enqueue(message("x", { queue: "zeta" }));
    await store.enqueue(message("y", { queue: "alpha" }));
    const [x] = await store.claim("zeta", T0, 10, T0 + 100);
    await store.ack("zeta", "x", x!.lease);
    assert.deepEqual(await store.queues(), ["alpha", "zeta"]);
    assert.deepEqual((await store.claim("alpha", T0, 10, T0 + 100)).map((m) => m.id), ["y"]);
    assert.deepEqual(await store.claim("zeta", T0, 10, T0 + 100), []);
  },

  "liveQueues() lists the queues holding live messages; forget() drops only an empty queue": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    assert.deepEqual(await store.liveQueues(), []);
    for (const queue of ["acked", "buried", "claimed", "ready"]) {
      await store.enqueue(message(`${queue}-1`, { queue }));
    }
    const [acked] = await store.claim("acked", T0, 1, T0 + 100);
    await store.ack("acked", acked!.id, acked!.lease);
    const [buried] = await store.claim("buried", T0, 1, T0 + 100);
    await store.bury("buried", buried!.id, buried!.lease, {
      attempts: 1,
      lastError: ERROR,
      failedAt: T0 + 1,
    });
    await store.claim("claimed", T0, 1, T0 + 100);
    assert.deepEqual(await store.liveQueues(), ["claimed", "ready"]);
    assert.deepEqual(await store.queues(), ["acked", "buried", "claimed", "ready"]);
    // A live message (claimed or not) or a dead letter keeps the queue.
    for (const queue of ["buried", "claimed", "ready"]) {
      assert.equal(await store.forget(queue), false, queue);
    }
    assert.equal(await store.forget("acked"), true);
    assert.equal(await store.forget("acked"), true, "forgetting twice changes nothing");
    assert.equal(await store.forget("never-used"), true);
    assert.deepEqual(await store.queues(), ["buried", "claimed", "ready"]);
    assert.equal(await store.discard("buried", "buried-1"), true);
    assert.equal(await store.forget("buried"), true);
    assert.deepEqual(await store.queues(), ["claimed", "ready"]);
    // A forgotten queue works again when used again, its old ids free.
    assert.equal(await store.enqueue(message("acked-1", { queue: "acked" })), true);
    assert.deepEqual(await store.queues(), ["acked", "claimed", "ready"]);
    assert.deepEqual(await store.liveQueues(), ["acked", "claimed", "ready"]);
    assert.deepEqual((await store.claim("acked", T0, 10, T0 + 100)).map((m) => m.id), ["acked-1"]);
  },

  "redrive() puts one or every dead letter back with no attempts": async (backend, stores) => {
    const store = await opened(backend, stores);
    for (const id of ["a", "b", "c"]) await store.enqueue(message(id));
    for (const m of await store.claim("jobs", T0, 10, T0 + 100)) {
      await store.bury("jobs", m.id, m.lease, { attempts: 4, lastError: ERROR, failedAt: T0 + 1 });
    }
    assert.equal(await store.redrive("jobs", "missing", T0 + 10), 0);
    assert.equal(await store.redrive("jobs", "b", T0 + 10), 1);
    assert.deepEqual((await store.deadLetters("jobs", 10)).letters.map((d) => d.id).sort(), [
      "a",
      "c",
    ]);
    const [b] = await store.claim("jobs", T0 + 10, 10, T0 + 100);
    assert.equal(b?.id, "b");
    assert.equal(b?.attempts, 0);
    assert.equal(b?.lastError, undefined);
    assert.deepEqual(b?.data, { id: "b" });
    assert.equal(await store.redrive("jobs", undefined, T0 + 20), 2);
    assert.deepEqual(await store.deadLetters("jobs", 10), { letters: [], total: 0 });
    assert.deepEqual(
      (await store.claim("jobs", T0 + 20, 10, T0 + 100)).map((m) => m.id).sort(),
      ["a", "c"],
    );
    assert.equal(await store.redrive("jobs", undefined, T0 + 30), 0);
  },

  "deadLetters() lists by failure time then id, newest first on request, in pages after a cursor":
    async (backend, stores) => {
      const store = await opened(backend, stores);
      // Five letters failed in the same millisecond, inserted out of order; one before, one after.
      await buried(store, [
        ["z-last", T0 + 50],
        ...[3, 0, 4, 2, 1].map((i) => [TIED[i]!, T0 + 20] as [string, number]),
        ["0-first", T0 + 10],
      ]);
      const order = ["0-first", ...TIED, "z-last"];
      const ids = async (limit: number, page?: Parameters<QueueStore["deadLetters"]>[2]) =>
        (await store.deadLetters("jobs", limit, page)).letters.map((d) => d.id);
      assert.deepEqual(await ids(100), order);
      assert.deepEqual(await ids(100, { newestFirst: false }), order);
      assert.deepEqual(await ids(100, { newestFirst: true }), order.slice().reverse());
      assert.deepEqual(await ids(3, { newestFirst: true }), ["z-last", TIED[4], TIED[3]]);
      // Paging by the last letter of each page visits every letter once, either way.
      for (const newestFirst of [false, true]) {
        const seen: string[] = [];
        let after: { failedAt: number; id: string } | undefined;
        while (true) {
          const { letters: page, total } = await store.deadLetters("jobs", 2, {
            newestFirst,
            ...(after === undefined ? {} : { after }),
          });
          assert.equal(total, order.length);
          if (page.length === 0) break;
          seen.push(...page.map((d) => d.id));
          const last = page.at(-1)!;
          after = { failedAt: last.failedAt, id: last.id };
        }
        assert.deepEqual(seen, newestFirst ? order.slice().reverse() : order, `${newestFirst}`);
      }
      // A cursor at a letter no longer there, or between letters, still marks a place.
      assert.equal(await store.discard("jobs", TIED[2]!), true);
      const at = { failedAt: T0 + 20, id: TIED[2]! };
      assert.deepEqual(await ids(2, { after: at }), [TIED[3], TIED[4]]);
      assert.deepEqual(await ids(2, { after: at, newestFirst: true }), [TIED[1], TIED[0]]);
      assert.deepEqual(await ids(10, { after: { failedAt: T0 + 30, id: "" } }), ["z-last"]);
      assert.deepEqual(
        await ids(10, { after: { failedAt: T0 + 20, id: "" }, newestFirst: true }),
        ["0-first"],
      );
      assert.deepEqual(await ids(10, { after: { failedAt: T0 + 50, id: "z-last" } }), []);
      assert.deepEqual(await ids(10, { after: { failedAt: T0, id: "x" }, newestFirst: true }), []);
      assert.deepEqual(await store.deadLetters("other", 10, { newestFirst: true }), {
        letters: [],
        total: 0,
      });
    },

  "redrive() and discardAll() of every dead letter take only those failed before a cut-off": async (
    backend,
    stores,
  ) => {
    const store = await opened(backend, stores);
    await buried(store, [["a", T0 + 10], ["b", T0 + 20], ["c", T0 + 20], ["d", T0 + 30]]);
    const left = async () => (await store.deadLetters("jobs", 10)).letters.map((d) => d.id);
    assert.equal(await store.redrive("jobs", undefined, T0 + 40, { failedBefore: T0 + 10 }), 0);
    assert.equal(await store.redrive("jobs", undefined, T0 + 40, { failedBefore: T0 + 20 }), 1);
    assert.deepEqual(await left(), ["b", "c", "d"]);
    const [a] = await store.claim("jobs", T0 + 40, 10, T0 + 100);
    assert.equal(a?.id, "a");
    assert.equal(a?.attempts, 0);

    assert.equal(await store.discardAll("jobs", { failedBefore: T0 + 30 }), 2);
    assert.deepEqual(await left(), ["d"]);
    assert.deepEqual(await store.counts("jobs", T0 + 200), {
      depth: 1,
      inFlight: 0,
      deadLetters: 1,
    });
    assert.equal(await store.enqueue(message("b")), true, "a discarded id is free again");
    assert.equal(await store.discardAll("jobs"), 1);
    assert.equal(await store.discardAll("jobs"), 0);
    assert.equal(await store.discardAll("nothing-here"), 0);
    assert.deepEqual(await left(), []);
  },

  "discard() deletes a dead letter once": async (backend, stores) => {
    const store = await opened(backend, stores);
    await store.enqueue(message("a"));
    const [a] = await store.claim("jobs", T0, 10, T0 + 100);
    await store.bury("jobs", "a", a!.lease, { attempts: 1, lastError: ERROR, failedAt: T0 });
    assert.equal(await store.discard("jobs", "a"), true);
    assert.equal(await store.discard("jobs", "a"), false);
    assert.deepEqual(await store.deadLetters("jobs", 10), { letters: [], total: 0 });
    assert.deepEqual(await store.counts("jobs", T0), { depth: 0, inFlight: 0, deadLetters: 0 });
    assert.equal(await store.enqueue(message("a")), true, "a discarded id is free again");
  },

  "messages survive closing and reopening the back end": {
    sharedOnly: true,
    run: async (backend, stores) => {
      const first = await opened(backend, stores);
      await first.enqueue(message("kept"));
      await first.enqueue(message("claimed", { enqueuedAt: T0 + 1 }));
      await first.claim("jobs", T0 + 1, 1, T0 + 1000);
      await first.close();
      const second = await opened(backend, stores);
      assert.deepEqual(await second.queues(), ["jobs"]);
      assert.deepEqual(await second.counts("jobs", T0 + 2), {
        depth: 1,
        inFlight: 1,
        deadLetters: 0,
      });
      // The closed store claimed "kept": it stays hidden until that lease ends.
      assert.deepEqual((await second.claim("jobs", T0 + 2, 10, T0 + 5000)).map((m) => m.id), [
        "claimed",
      ]);
      assert.deepEqual((await second.claim("jobs", T0 + 1000, 10, T0 + 5000)).map((m) => m.id), [
        "kept",
      ]);
    },
  },

  "a queue one store forgot is named again by another store's next enqueue to it": {
    sharedOnly: true,
    run: async (backend, stores) => {
      const one = await opened(backend, stores);
      const two = await opened(backend, stores);
      await one.enqueue(message("a", { queue: "q" }));
      const [a] = await one.claim("q", T0, 1, T0 + 100);
      await one.ack("q", "a", a!.lease);
      assert.equal(await two.forget("q"), true);
      assert.deepEqual(await one.queues(), []);
      // `one` stored in "q" before: it must not take the name for stored still.
      await one.enqueue(message("b", { queue: "q" }));
      assert.deepEqual(await two.queues(), ["q"]);
      assert.deepEqual(await two.liveQueues(), ["q"]);
    },
  },

  "two stores on one back end never claim the same message at once": {
    sharedOnly: true,
    run: async (backend, stores) => {
      const one = await opened(backend, stores);
      const two = await opened(backend, stores);
      for (let i = 0; i < 40; i++) await one.enqueue(message(`m${i}`, { enqueuedAt: T0 + i }));
      const claims = await Promise.all(
        Array.from(
          { length: 8 },
          (_, i) => (i % 2 ? one : two).claim("jobs", T0 + 100, 7, T0 + 1000),
        ),
      );
      const ids = claims.flat().map((m) => m.id);
      assert.equal(ids.length, 40);
      assert.equal(new Set(ids).size, 40);
    },
  },
};

onEveryQueueStore("QueueStore", cases, "queue-sqlite-");

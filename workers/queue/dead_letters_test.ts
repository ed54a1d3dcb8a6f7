/**
 * `engine::queue::dead_letters`, `redrive` and `discard` over every adapter
 * (memory, SQLite in a temporary folder, a real `redis-server`): pages newest
 * or oldest first with a cursor, cut-offs for redrive and discard of all, and
 * the errors naming the field. The functions run on a {@link ManualClock}, and
 * dead letters are made in the store with the failure times a case picks.
 */

import assert from "node:assert/strict";
import { CallError, type InvocationContext } from "../../engine/api.ts";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { onEveryQueueStore, type QueueBackend, type QueueCase } from "./adapters/_testing.ts";
import type { QueueStore } from "./adapters/store.ts";
import { ManualClock } from "./clock.ts";
import { parseConfig } from "./config.ts";
import { Counters } from "./counters.ts";
import { Dispatcher } from "./dispatcher.ts";
import { createQueueFunctions } from "./functions.ts";

type Backend = QueueBackend;
type Answer = Record<string, unknown> & { dead_letters: { id: string; failed_at_ms: number }[] };

const T0 = 1_700_000_000_000;
const ERROR = { code: "invocation_failed", message: "boom" };

/** The functions over a store of `backend`, and a caller of them. */
async function functionsOn(backend: Backend, stores: QueueStore[]) {
  const store = await backend.open();
  stores.push(store);
  const config = parseConfig({ adapter: "memory" });
  const { log } = recordingLog();
  const counters = new Counters();
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => config.default_queue,
    target: { call: () => Promise.resolve(null), hasFunction: () => false },
    log,
  });
  // Stopped before it started: it claims nothing, so redriven letters stay in the queue.
  await dispatcher.stop();
  const functions = createQueueFunctions({
    config,
    store,
    dispatcher,
    counters,
    clock: new ManualClock(T0 + 1000),
    log,
  });
  const call = async (id: string, payload: unknown) => {
    const ctx: InvocationContext = {
      functionId: id,
      invocationId: "test",
      signal: new AbortController().signal,
    };
    return await functions[`engine::queue::${id}`]!.handler(payload, ctx) as Answer;
  };
  return { store, call, counters };
}

/** Dead letters of queue "jobs" that failed at the given times. */
async function bury(store: QueueStore, letters: [id: string, failedAt: number][]) {
  for (const [id] of letters) {
    await store.enqueue({
      id,
      queue: "jobs",
      functionId: "jobs::run",
      dataText: JSON.stringify({ id }),
      enqueuedAt: T0,
    });
  }
  const claimed = await store.claim("jobs", T0, letters.length, T0 + 100);
  for (const [id, failedAt] of letters) {
    const lease = claimed.find((m) => m.id === id)!.lease;
    await store.bury("jobs", id, lease, { attempts: 1, lastError: ERROR, failedAt });
  }
}

const ids = (answer: Answer) => answer.dead_letters.map((d) => d.id);

const cases: Record<string, QueueCase> = {
  "dead_letters pages newest or oldest first with next_cursor": async (backend, stores) => {
    const { store, call } = await functionsOn(backend, stores);
    await bury(store, [["a", T0 + 1], ["c", T0 + 2], ["b", T0 + 2], ["d", T0 + 3], ["e", T0 + 4]]);
    // The payload of before: oldest first, at most 100, no next_cursor on the last page.
    assert.deepEqual(Object.keys(await call("dead_letters", { queue: "jobs" })).sort(), [
      "dead_letters",
      "queue",
      "total",
    ]);
    assert.deepEqual(ids(await call("dead_letters", { queue: "jobs" })), ["a", "b", "c", "d", "e"]);
    for (const [order, expected] of [["newest_first", "edcba"], ["oldest_first", "abcde"]]) {
      const seen: string[] = [];
      const cursors: unknown[] = [];
      let cursor: unknown;
      do {
        const page = await call("dead_letters", {
          queue: "jobs",
          limit: 2,
          order,
          ...(cursor === undefined ? {} : { cursor }),
        });
        assert.equal(page.total, 5);
        seen.push(...ids(page));
        cursor = page.next_cursor;
        cursors.push(cursor);
      } while (cursor !== undefined);
      assert.deepEqual(seen.join(""), expected);
      assert.equal(cursors.length, 3, `${order}: pages of 2, 2 and 1`);
    }
    const first = await call("dead_letters", { queue: "jobs", limit: 2, order: "newest_first" });
    assert.equal(first.next_cursor, `${T0 + 3}:d`);
    // A letter gone since the page before does not lose the place.
    await call("discard", { queue: "jobs", id: "d" });
    const next = await call("dead_letters", {
      queue: "jobs",
      limit: 2,
      order: "newest_first",
      cursor: first.next_cursor,
    });
    assert.deepEqual(ids(next), ["c", "b"]);
    // Exactly a page left: no next_cursor.
    const rest = await call("dead_letters", {
      queue: "jobs",
      limit: 3,
      order: "newest_first",
      cursor: first.next_cursor,
    });
    assert.deepEqual(ids(rest), ["c", "b", "a"]);
    assert.equal(rest.next_cursor, undefined);
  },

  "redrive and discard of all take only the letters failed before failed_before_ms": async (
    backend,
    stores,
  ) => {
    const { store, call, counters } = await functionsOn(backend, stores);
    await bury(store, [["a", T0 + 10], ["b", T0 + 20], ["c", T0 + 30], ["d", T0 + 40]]);
    assert.deepEqual(await call("redrive", { queue: "jobs", failed_before_ms: T0 + 20 }), {
      queue: "jobs",
      redriven: 1,
    });
    assert.deepEqual(
      await call("discard", { queue: "jobs", all: true, failed_before_ms: T0 + 31 }),
      {
        queue: "jobs",
        discarded: 2,
      },
    );
    assert.deepEqual(ids(await call("dead_letters", { queue: "jobs" })), ["d"]);
    assert.deepEqual(await call("discard", { queue: "jobs", all: true, failed_before_ms: T0 }), {
      queue: "jobs",
      discarded: 0,
    });
    assert.deepEqual(await call("redrive", { queue: "jobs" }), { queue: "jobs", redriven: 1 });
    await bury(store, [["e", T0 + 50], ["f", T0 + 60]]);
    // Without "id" or "all" nothing is deleted: a call that lost its id is refused.
    await assert.rejects(call("discard", { queue: "jobs" }), /"id": Missing: give the "id"/);
    assert.deepEqual(await call("discard", { queue: "jobs", all: true }), {
      queue: "jobs",
      discarded: 2,
    });
    assert.equal((await call("dead_letters", { queue: "jobs" })).total, 0);
    assert.deepEqual(
      { redriven: counters.of("jobs").redriven, discarded: counters.of("jobs").discarded },
      { redriven: 2, discarded: 4 },
    );
    // One letter by id answers as before.
    await bury(store, [["g", T0 + 70]]);
    assert.deepEqual(await call("discard", { queue: "jobs", id: "g" }), {
      queue: "jobs",
      id: "g",
      discarded: true,
    });
  },

  "dead_letters answers a total that agrees with its page while another engine buries letters":
    async (
      backend,
      stores,
    ) => {
      const { store, call } = await functionsOn(backend, stores);
      // Another engine on the same back end (Redis, the SQLite file), or the same memory store.
      const other = backend.shared ? await backend.open() : store;
      if (other !== store) stores.push(other);
      const LETTERS = 150;
      await bury(store, [["m0", T0]]); // the queue exists from the first read on
      let buried = 1;
      const writer = (async () => {
        for (; buried < LETTERS; buried++) await bury(other, [[`m${buried}`, T0 + buried]]);
      })();
      let reads = 0;
      const disagreements: string[] = [];
      while (buried < LETTERS || reads === 0) {
        const page = await call("dead_letters", { queue: "jobs", limit: 1000 });
        reads++;
        // Let the event loop turn: SQLite's enqueues are written there (group commit).
        await new Promise((resolve) => setTimeout(resolve));
        if (page.total !== page.dead_letters.length) {
          disagreements.push(`total ${page.total}, ${page.dead_letters.length} listed`);
        }
      }
      await writer;
      assert.deepEqual(disagreements, [], `${disagreements.length} of ${reads} reads disagreed`);
      const last = await call("dead_letters", { queue: "jobs", limit: 1000 });
      assert.equal(last.total, LETTERS);
      assert.equal(last.dead_letters.length, LETTERS);
    },

  "bad paging and cut-off input is refused, naming the field": async (backend, stores) => {
    const { store, call } = await functionsOn(backend, stores);
    await bury(store, [["a", T0 + 1]]);
    const cases: [fn: string, payload: Record<string, unknown>, message: string][] = [
      [
        "dead_letters",
        { order: "sideways" },
        `"order": Invalid option: expected one of "oldest_first"|"newest_first"`,
      ],
      [
        "dead_letters",
        { cursor: "later" },
        `"cursor": Invalid cursor "later": pass the "next_cursor" of the page before`,
      ],
      ["dead_letters", { cursor: 12 }, `"cursor": Invalid input: expected string, received number`],
      ["dead_letters", { limit: 1001 }, `"limit": Too big: expected number to be <=1000`],
      [
        "redrive",
        { failed_before_ms: -1 },
        `"failed_before_ms": Too small: expected number to be >=0`,
      ],
      [
        "discard",
        { all: true, failed_before_ms: "now" },
        `"failed_before_ms": Invalid input: expected number, received string`,
      ],
      [
        "discard",
        { all: true, failed_before_ms: 1.5 },
        `"failed_before_ms": Invalid input: expected int, received number`,
      ],
      [
        "redrive",
        { id: "a", failed_before_ms: T0 },
        `"failed_before_ms": Cannot be given with "id": the cut-off picks among all of the queue's dead letters`,
      ],
      [
        "discard",
        { id: "a", failed_before_ms: T0 },
        `"failed_before_ms": Cannot be given with "id": the cut-off picks among all of the queue's dead letters`,
      ],
      [
        "discard",
        { id: "a", all: true },
        `"all": Cannot be given with "id": "all" means every dead letter of the queue`,
      ],
      ["discard", { all: false }, `"all": Invalid input: expected true`],
      [
        "redrive",
        { id: "a", all: true },
        `"all": Cannot be given with "id": "all" means every dead letter of the queue`,
      ],
    ];
    for (const [fn, payload, message] of cases) {
      await assert.rejects(call(fn, { queue: "jobs", ...payload }), (error) => {
        assert.ok(error instanceof CallError);
        assert.deepEqual(error.toBody(), {
          code: "INVALID_ARGUMENT",
          message: `Invalid input for engine::queue::${fn}: ${message}`,
        });
        return true;
      }, `${fn} ${JSON.stringify(payload)}`);
    }
    assert.equal((await call("dead_letters", { queue: "jobs" })).total, 1, "nothing changed");
  },
};

onEveryQueueStore("engine::queue dead-letter functions", cases, "queue-dead-letters-");

/**
 * The SQLite queue store while its file refuses writes: failures of the
 * storage are logged once per outage (a reminder at most per period, a line
 * when writes work again) and come marked as logged, so the dispatcher and
 * the functions do not log each one; other failures stay the caller's to log.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { LogStore } from "../../../engine/observability/logs.ts";
import { loggedOutageOf } from "../../_shared/store_outage.ts";
import { QueueOutageLog as SqliteOutageLog } from "../../_shared/sqlite_outage.ts";
import { SqliteStore } from "./sqlite.ts";

const FUTURE = Number.MAX_SAFE_INTEGER;

async function withStore(
  body: (s: { store: SqliteStore; logs: LogStore; path: string }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "queue-sqlite-outage-" });
  const path = join(dir, "queue.db");
  const logs = new LogStore();
  const store = SqliteStore.open({ path, log: logs.logger({ source: "engine-queue" }) });
  try {
    await body({ store, logs, path });
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const message = (id: string) => ({
  id,
  queue: "q",
  functionId: "f::g",
  dataText: "1",
  enqueuedAt: 0,
});

Deno.test("SqliteStore with its file deleted: every claim fails marked as a logged outage, one log line for all", async () => {
  await withStore(async ({ store, logs, path }) => {
    assert.equal(await store.enqueue(message("m1")), true);
    await Deno.remove(path);
    for (let i = 0; i < 50; i++) {
      assert.throws(
        () => store.claim(`q`, 1, 10, FUTURE),
        (error: Error) => {
          assert.match(error.message, /was deleted while the engine had it open/);
          assert.notEqual(loggedOutageOf(error), undefined, "not marked as logged");
          return true;
        },
      );
    }
    const enqueue = await store.enqueue(message("m2")).catch((error) => error);
    assert.notEqual(loggedOutageOf(enqueue), undefined);
    assert.deepEqual(logs.query().map((e) => [e.level, e.message]), [[
      "error",
      `Writes to the queue database fail: the queue database "${path}" was deleted while the ` +
      "engine had it open: writes are refused, as they would be lost with it; restart the " +
      "engine to create a new one: enqueues fail and no message is delivered meanwhile",
    ]]);
    // Reads still work: the queue can be listed.
    assert.deepEqual(store.counts("q", 1), { depth: 1, inFlight: 0, deadLetters: 0 });
  });
});

Deno.test("SqliteOutageLog: a storage failure starts an outage, reminders come at most once a period, a write ends it", () => {
  const logs = new LogStore();
  let now = 0;
  let gone = false;
  const outages = new SqliteOutageLog({
    path: "/data/queue.db",
    log: logs.logger({ source: "engine-queue" }),
    checkFile() {
      if (gone) throw new Error('the queue database "/data/queue.db" was deleted');
    },
    reminderMs: 15_000,
    now: () => now,
  });
  // Not the storage's trouble: left to the caller, nothing logged.
  const bug = new Error("no such column: x");
  assert.equal(outages.failed(bug), bug);
  assert.equal(loggedOutageOf(bug), undefined);
  assert.equal(outages.down, false);

  const full = () => new Error("database or disk is full");
  assert.notEqual(loggedOutageOf(outages.failed(full())), undefined);
  for (let t = 1; t <= 29; t++) {
    now = t * 1000;
    outages.failed(full());
    outages.countFailedCall();
  }
  now = 40_000;
  outages.wrote();
  outages.wrote();
  // A file gone, found by the check after an error SQLite gives other words to.
  gone = true;
  assert.notEqual(loggedOutageOf(outages.failed(new Error("no such table: t"))), undefined);
  assert.deepEqual(logs.query().map((e) => `${e.level} ${e.message}`), [
    'error Writes to the queue database fail: database or disk is full (SQLite database "/data/queue.db"): enqueues fail and no message is delivered meanwhile',
    "warn Writes to the queue database still fail after 15 s: 14 calls failed in the last 15 s: " +
    'database or disk is full (SQLite database "/data/queue.db")',
    'info Writes to the queue database "/data/queue.db" work again after 40 s: 29 calls failed meanwhile',
    'error Writes to the queue database fail: the queue database "/data/queue.db" was deleted: enqueues fail and no message is delivered meanwhile',
  ]);
});

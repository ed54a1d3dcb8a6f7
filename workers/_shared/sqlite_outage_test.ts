/**
 * The outage log of a SQLite database (engine-state's and engine-queue's):
 * its lines name the database, and a disk flipping between full and not
 * (a relapse soon after an outage ended) is one outage, ended once writes
 * have worked for a while, its flips counted in the reminders.
 */

import assert from "node:assert/strict";
import { LogStore } from "../../engine/observability/logs.ts";
import { FLAP_MS, SETTLE_MS, SqliteOutageLog } from "./sqlite_outage.ts";
import { REMINDER_MS } from "./redis_outage.ts";
import { loggedOutageOf } from "./store_outage.ts";

function stateLog() {
  const logs = new LogStore();
  const clock = { now: 0 };
  const outages = new SqliteOutageLog({
    path: "/data/state.db",
    label: "state",
    consequence: "writes fail meanwhile",
    log: logs.logger({ source: "engine-state" }),
    checkFile() {},
    now: () => clock.now,
  });
  const lines = () => logs.query().map((e) => `${e.level} ${e.message}`);
  return { outages, clock, lines };
}

const full = () => new Error("database or disk is full");

Deno.test("SqliteOutageLog: a relapse within FLAP_MS of an end is one outage until writes work for SETTLE_MS", () => {
  const { outages, clock, lines } = stateLog();
  outages.failed(full());
  clock.now = 1000;
  outages.wrote(); // the first outage ends at once
  // The disk flips: failing, working, failing… every second for a minute.
  for (let t = 2; t <= 62; t++) {
    clock.now = t * 1000;
    if (t % 2 === 0) {
      assert.notEqual(loggedOutageOf(outages.failed(full())), undefined);
      outages.countFailedCall();
    } else outages.wrote();
  }
  assert.equal(outages.down, true);
  // Writes work from 63 s on; the outage ends with the first write SETTLE_MS later.
  clock.now = 63_000;
  outages.wrote();
  clock.now = 63_000 + SETTLE_MS - 1;
  outages.wrote();
  assert.equal(outages.down, true);
  clock.now = 63_000 + SETTLE_MS;
  outages.wrote();
  assert.equal(outages.down, false);
  const path = '(SQLite database "/data/state.db")';
  assert.deepEqual(lines(), [
    `error Writes to the state database fail: database or disk is full ${path}: writes fail meanwhile`,
    'info Writes to the state database "/data/state.db" work again after 1 s: 0 calls failed meanwhile',
    `error Writes to the state database fail: database or disk is full ${path}: writes fail meanwhile`,
    "warn Writes to the state database still fail after 16 s: 8 calls failed in the last 16 s, " +
    `working in between 8 times: database or disk is full ${path}`,
    "warn Writes to the state database still fail after 32 s: 8 calls failed in the last 16 s, " +
    `working in between 8 times: database or disk is full ${path}`,
    "warn Writes to the state database still fail after 48 s: 8 calls failed in the last 16 s, " +
    `working in between 8 times: database or disk is full ${path}`,
    'info Writes to the state database "/data/state.db" work again after 91 s: 31 calls failed ' +
    "meanwhile; they had failed and worked by turns (30 times) before",
  ]);
});

Deno.test("SqliteOutageLog: an outage later than FLAP_MS after the previous one ends at its first write", () => {
  const { outages, clock, lines } = stateLog();
  outages.failed(full());
  clock.now = 1000;
  outages.wrote();
  clock.now = 1000 + FLAP_MS;
  outages.failed(full());
  clock.now += 1000;
  outages.wrote();
  assert.equal(outages.down, false);
  assert.equal(lines().length, 4);
  assert.ok(REMINDER_MS < SETTLE_MS && SETTLE_MS < FLAP_MS);
});

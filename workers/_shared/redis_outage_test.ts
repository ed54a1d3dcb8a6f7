import assert from "node:assert/strict";
import type { Logger } from "../../engine/api.ts";
import { RedisOutageLog, REMINDER_MS } from "./redis_outage.ts";

/** A logger keeping every line as `<level> <message>`. */
function linesLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const log: Logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => log,
  };
  return { log, lines };
}

function outageLog() {
  let now = 1_000_000;
  const { log, lines } = linesLog();
  const outages = new RedisOutageLog({ where: "redis://:***@h:6379/2", log, now: () => now });
  return { outages, lines, advance: (ms: number) => now += ms };
}

Deno.test("RedisOutageLog logs an outage once, however many errors and failed calls it brings", () => {
  const { outages, lines, advance } = outageLog();
  outages.unreachable("connect ECONNREFUSED 10.0.0.1:6379");
  for (let i = 0; i < 1000; i++) {
    outages.countFailedCall();
    if (i % 10 === 0) outages.unreachable("connect ECONNREFUSED 10.0.0.1:6379");
    advance(10); // 10 s in all: less than a reminder's interval
  }
  assert.ok(outages.down);
  assert.deepEqual(lines, [
    "error Redis at redis://:***@h:6379/2 is unreachable: connect ECONNREFUSED 10.0.0.1:6379: calls that need it fail until it is back",
  ]);
});

Deno.test("RedisOutageLog reminds at most once per interval, with the calls failed since the last line and the latest cause", () => {
  const { outages, lines, advance } = outageLog();
  outages.unreachable("connect ECONNREFUSED 10.0.0.1:6379");
  // 60 s of outage, an event every 100 ms.
  for (let t = 0; t < 60_000; t += 100) {
    advance(100);
    outages.countFailedCall();
    if (t === 30_000) outages.unreachable("getaddrinfo ENOTFOUND h");
  }
  const reminders = lines.filter((line) => line.startsWith("warn "));
  assert.equal(reminders.length, Math.floor(60_000 / REMINDER_MS));
  assert.equal(
    reminders[0],
    "warn Redis at redis://:***@h:6379/2 is still unreachable after 15 s: 150 calls failed in the last 15 s: connect ECONNREFUSED 10.0.0.1:6379",
  );
  assert.match(
    reminders.at(-1)!,
    /after 60 s: 150 calls failed in the last 15 s: getaddrinfo ENOTFOUND h$/,
  );
});

Deno.test("RedisOutageLog logs the way back once, with how long it took and the calls that failed", () => {
  const { outages, lines, advance } = outageLog();
  outages.reachable(); // not down: nothing to say
  outages.unreachable("connect ECONNREFUSED 10.0.0.1:6379");
  for (let i = 0; i < 7; i++) outages.countFailedCall();
  advance(4_400);
  outages.reachable();
  outages.reachable();
  outages.countFailedCall(); // not down: not counted against a later outage
  assert.equal(outages.down, false);
  assert.deepEqual(lines.slice(1), [
    "info Redis at redis://:***@h:6379/2 is reachable again after 4 s: 7 calls failed meanwhile",
  ]);
  outages.unreachable("connect ECONNREFUSED 10.0.0.1:6379");
  outages.countFailedCall();
  outages.reachable();
  assert.equal(
    lines.at(-1),
    "info Redis at redis://:***@h:6379/2 is reachable again after 0 s: 1 call failed meanwhile",
  );
  assert.equal(lines.length, 4);
});

import assert from "node:assert/strict";
import { type Clock, Scopes } from "./scope.ts";

const trace = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };

/** A clock that moves only when told to, firing the timers that fall due. */
class ManualClock implements Clock {
  time = 1000;
  readonly timers = new Map<number, { at: number; callback: () => void; held: boolean }>();
  #next = 0;
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): number {
    this.timers.set(++this.#next, { at: this.time + ms, callback, held: true });
    return this.#next;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  hold(handle: unknown, held: boolean): void {
    const timer = this.timers.get(handle as number);
    assert.ok(timer, "hold() of a timer that is not armed");
    timer.held = held;
  }
  /** Timers that keep the process alive. */
  get held(): number {
    return [...this.timers.values()].filter((timer) => timer.held).length;
  }
  advance(ms: number): void {
    this.time += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at > this.time) continue;
      this.timers.delete(id);
      timer.callback();
    }
  }
}

/** The reason `promise` rejects with, or `"pending"` if it has not settled after a macrotask. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  const pending = new Promise((resolve) => setTimeout(() => resolve("pending"), 0));
  return await Promise.race([promise.then(() => "resolved", (reason) => reason), pending]);
}

Deno.test("Scopes end requests as their time runs out, oldest first, on one timer", async () => {
  const clock = new ManualClock();
  const scopes = new Scopes(20, new AbortController().signal, clock);
  const first = scopes.open(clock.now(), trace);
  clock.advance(15);
  const second = scopes.open(clock.now(), trace);
  assert.equal(clock.timers.size, 1, "one timer for both");
  const waits = [first, second].map((scope) => scope.bound(new Promise(() => {})));
  clock.advance(5);
  assert.equal(first.ended, true);
  assert.equal(String(await outcome(waits[0]!)), "TimeoutError: Request timed out");
  assert.equal(second.ended, false, "the second has 15 ms left");
  assert.equal(await outcome(waits[1]!), "pending");
  assert.equal(clock.timers.size, 1, "re-armed for the second");
  clock.advance(15);
  assert.equal(second.ended, true);
  assert.equal((second.signal.reason as DOMException).name, "TimeoutError");
  scopes.close(first);
  scopes.close(second);
  assert.equal(clock.timers.size, 0);
});

Deno.test("Scopes let the timer go with the last request and keep it for the next one", async () => {
  const clock = new ManualClock();
  const scopes = new Scopes(60_000, new AbortController().signal, clock);
  const scope = scopes.open(clock.now(), { ...trace, baggage: "k=v" });
  assert.equal(scope.baggage, "k=v");
  assert.equal(await scope.bound(Promise.resolve("body")), "body");
  await assert.rejects(scope.bound(Promise.reject(new Error("read failed"))), /read failed/);
  const other = scopes.open(clock.now(), trace);
  scopes.close(scope);
  assert.equal(clock.held, 1, "kept for the request still open");
  scopes.close(other);
  scopes.close(other); // twice: nothing more happens
  assert.equal(clock.held, 0, "no longer holding the process open");
  assert.equal(clock.timers.size, 1, "armed still: one request at a time arms no timer each");
  assert.equal(scope.ended, false);
  clock.advance(30_000);
  const next = scopes.open(clock.now(), trace);
  assert.deepEqual([clock.timers.size, clock.held], [1, 1], "the same timer, held again");
  clock.advance(30_000); // the first request's time: the timer re-arms for this one
  assert.equal(next.ended, false);
  assert.deepEqual([clock.timers.size, clock.held], [1, 1]);
  clock.advance(30_000);
  assert.equal(next.ended, true, "ended at its own deadline");
  scopes.close(next);
  assert.equal(clock.timers.size, 0);
  const fresh = scopes.open(clock.now(), trace);
  assert.deepEqual([clock.timers.size, clock.held], [1, 1], "armed anew after it fired");
  scopes.close(fresh);
});

Deno.test("Scopes end every open request when the worker stops, and new ones at once", async () => {
  const stopping = new AbortController();
  const scopes = new Scopes(60_000, stopping.signal, new ManualClock());
  const scope = scopes.open(0, { ...trace, baggage: null });
  assert.equal(scope.baggage, undefined);
  const signal = scope.signal;
  const wait = scope.bound(new Promise(() => {}));
  stopping.abort("stopping");
  assert.equal(await outcome(wait), "stopping");
  assert.equal(scope.ended, true);
  assert.equal(signal.aborted, true);
  const late = scopes.open(0, trace);
  assert.equal(late.ended, true);
  assert.equal(late.signal.reason, "stopping", "a signal asked for after the end is aborted");
  assert.equal(await outcome(late.bound(Promise.resolve(1))), "stopping");
  scopes.close(scope);
  scopes.close(late);
});

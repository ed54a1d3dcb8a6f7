/**
 * Test support for the delivery loop: a {@link Dispatcher} over a memory
 * store with a {@link ManualClock}, and a target whose calls the test
 * answers one by one. Every wait is on an explicit signal (a call arriving,
 * an outcome recorded), never a sleep.
 *
 * @module
 */

import { CallError } from "../../engine/api.ts";
import { LogStore } from "../../engine/observability/logs.ts";
import { MemoryStore } from "./adapters/memory.ts";
import { ManualClock } from "./clock.ts";
import { QUEUE_DEFAULTS, type QueueSettings } from "./config.ts";
import { type DeliveryEvent, Dispatcher } from "./dispatcher.ts";

/** One call the dispatcher made, waiting for the test's answer. */
export interface PendingCall {
  functionId: string;
  data: unknown;
  options: { timeoutMs: number; traceparent?: string; baggage?: string; signal: AbortSignal };
  at: number;
  resolve(result?: unknown): void;
  reject(error: CallError): void;
}

/** A stream of values with `next()` waiting for the first one not yet taken. */
class Mailbox<T> {
  readonly all: T[] = [];
  #taken = 0;
  #waiters: ((value: T) => void)[] = [];

  push(value: T): void {
    this.all.push(value);
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#taken++;
      waiter(value);
    }
  }

  next(): Promise<T> {
    if (this.#taken < this.all.length) return Promise.resolve(this.all[this.#taken++]!);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** A memory store counting the calls a poll makes per queue. */
class CountingStore extends MemoryStore {
  claims = 0;
  nextDues = 0;

  override claim(
    queue: string,
    now: number,
    limit: number,
    leaseUntil: number,
    skip?: readonly string[],
  ) {
    this.claims++;
    return super.claim(queue, now, limit, leaseUntil, skip);
  }

  override nextDue(queue: string) {
    this.nextDues++;
    return super.nextDue(queue);
  }
}

export function dispatchHarness(
  settings: Partial<QueueSettings> = {},
  options: { forgetAfterMs?: number } = {},
) {
  const clock = new ManualClock();
  const store = new CountingStore();
  const forgotten: string[] = [];
  const logs = new LogStore();
  const registered = new Set(["jobs::run"]);
  const calls = new Mailbox<PendingCall>();
  const events = new Mailbox<DeliveryEvent>();
  let inFlight = 0;
  let maxInFlight = 0;
  const dispatcher = new Dispatcher({
    store,
    settingsOf: () => ({ ...QUEUE_DEFAULTS, ...settings }),
    target: {
      call: (functionId, data, options) =>
        new Promise((resolve, reject) => {
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          const done = () => inFlight--;
          options.signal.addEventListener("abort", () => {
            done();
            reject(new CallError({ code: "invocation_stopped", message: "Invocation stopped" }));
          }, { once: true });
          calls.push({
            functionId,
            data,
            options,
            at: clock.now(),
            resolve: (result) => (done(), resolve(result)),
            reject: (error) => (done(), reject(error)),
          });
        }),
      hasFunction: (id) => registered.has(id),
    },
    log: logs.logger({ source: "engine-queue" }),
    clock,
    shutdownGraceMs: 0,
    onEvent: (event) => events.push(event),
    onForget: (queue) => forgotten.push(queue),
    ...options,
  });
  let next = 0;
  return {
    clock,
    store,
    logs,
    registered,
    dispatcher,
    calls,
    events,
    /** The queues the dispatcher said the store forgot, in order. */
    forgotten,
    get maxInFlight() {
      return maxInFlight;
    },
    /** Stores a message for `jobs::run` in queue `jobs` and tells the dispatcher. */
    async enqueue(data: unknown, extra: { traceparent?: string } = {}): Promise<string> {
      const id = `m${++next}`;
      await store.enqueue({
        id,
        queue: "jobs",
        functionId: "jobs::run",
        dataText: JSON.stringify(data),
        enqueuedAt: clock.now(),
        ...extra,
      });
      dispatcher.notify("jobs");
      return id;
    },
    /** Moves the clock and waits until the loop has acted on it. */
    async advance(ms: number): Promise<void> {
      clock.advance(ms);
      await dispatcher.idle();
    },
  };
}

export function failure(message: string): CallError {
  return new CallError({ code: "invocation_failed", message });
}

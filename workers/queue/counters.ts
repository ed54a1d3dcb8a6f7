/**
 * What this worker did since it started, per queue: the figures
 * `engine::queue::stats` reports. They live in memory and restart at zero
 * with the engine; the store holds what is durable (depth, dead letters).
 * A queue's counters can be forgotten (a queue not in the config, empty and
 * idle for a while): the totals keep what it counted.
 *
 * @module
 */

import type { DeliveryEvent } from "./dispatcher.ts";

/** The counters of one queue. */
export interface QueueCounters {
  /** Messages accepted by `engine::queue::enqueue`. */
  enqueued: number;
  /** Deliveries answered with success (messages acknowledged). */
  delivered: number;
  /** Deliveries that failed or timed out, retried or not. */
  failed: number;
  /** Failed deliveries followed by a retry. */
  retried: number;
  /** Messages that became dead letters. */
  dead_lettered: number;
  /** Deliveries put off because the function was not registered. */
  waited: number;
  /** Dead letters put back by `engine::queue::redrive`. */
  redriven: number;
  /** Dead letters deleted by `engine::queue::discard`. */
  discarded: number;
}

function zero(): QueueCounters {
  return {
    enqueued: 0,
    delivered: 0,
    failed: 0,
    retried: 0,
    dead_lettered: 0,
    waited: 0,
    redriven: 0,
    discarded: 0,
  };
}

/** Counters by queue. */
export class Counters {
  readonly since = Date.now();
  readonly #keep: (queue: string) => boolean;
  readonly #queues = new Map<string, QueueCounters>();
  /** The sum over every queue, forgotten ones included. */
  readonly #totals = zero();

  add(queue: string, field: keyof QueueCounters, by = 1): void {
    let counters = this.#queues.get(queue);
    if (counters === undefined) {
      counters = zero();
      this.#queues.set(queue, counters);
    }
    counters[field] += by;
    this.#totals[field] += by;
  }

  /** `keep(queue)`: whether `forget` keeps the counters of `queue` (a configured queue's). */
  constructor(options: { keep?: (queue: string) => boolean } = {}) {
    this.#keep = options.keep ?? (() => false);
  }

  /** Drops the counters of `queue` unless kept (they start again at zero); the totals keep them. */
  forget(queue: string): void {
    if (!this.#keep(queue)) this.#queues.delete(queue);
  }

  /** Counts one delivery outcome. */
  record(event: DeliveryEvent): void {
    switch (event.kind) {
      case "ack":
        return this.add(event.queue, "delivered");
      case "wait":
        return this.add(event.queue, "waited");
      case "retry":
        this.add(event.queue, "failed");
        return this.add(event.queue, "retried");
      case "bury":
        this.add(event.queue, "failed");
        return this.add(event.queue, "dead_lettered");
    }
  }

  /** A copy of one queue's counters (zeros for a queue not seen). */
  of(queue: string): QueueCounters {
    return { ...(this.#queues.get(queue) ?? zero()) };
  }

  /** The sum over every queue since the worker started, forgotten queues included. */
  totals(): QueueCounters {
    return { ...this.#totals };
  }

  /** The queues with at least one counter. */
  queues(): string[] {
    return [...this.#queues.keys()];
  }
}

/**
 * The memory queue adapter: messages live in this process and are lost when
 * the engine stops. For tests and throwaway setups.
 *
 * @module
 */

import { parseExact } from "../../../engine/protocol/exact_json.ts";
import type { ErrorBody } from "../../../engine/api.ts";
import {
  type ClaimedMessage,
  compareDeadLetters,
  type DeadLetterCut,
  type DeadLetterList,
  type DeadLetterPage,
  type MessageMeta,
  type NewMessage,
  type QueueCounts,
  type QueueStore,
  type Reschedule,
} from "./store.ts";

interface Live {
  meta: MessageMeta;
  dataText: string;
  visibleAt: number;
  /** Arrival order, the tie-break between messages due at the same time. */
  seq: number;
  lease?: string;
}

interface Dead {
  meta: MessageMeta;
  dataText: string;
  lastError: ErrorBody;
  failedAt: number;
}

interface Queue {
  live: Map<string, Live>;
  dead: Map<string, Dead>;
}

/** A {@link QueueStore} in this process's memory. */
export class MemoryStore implements QueueStore {
  readonly adapter = "memory";
  readonly claimSkips = true;
  readonly #queues = new Map<string, Queue>();
  #seq = 0;
  #leases = 0;
  #closed = false;

  enqueue(message: NewMessage): boolean {
    const queue = this.#queue(message.queue, true);
    if (queue.live.has(message.id) || queue.dead.has(message.id)) return false;
    const meta: MessageMeta = {
      id: message.id,
      queue: message.queue,
      functionId: message.functionId,
      enqueuedAt: message.enqueuedAt,
      attempts: 0,
    };
    if (message.traceparent !== undefined) meta.traceparent = message.traceparent;
    if (message.baggage !== undefined) meta.baggage = message.baggage;
    queue.live.set(message.id, {
      meta,
      dataText: message.dataText,
      visibleAt: message.enqueuedAt,
      seq: ++this.#seq,
    });
    return true;
  }

  claim(
    queueName: string,
    now: number,
    limit: number,
    leaseUntil: number,
    skip: readonly string[] = [],
  ): ClaimedMessage[] {
    const queue = this.#queue(queueName, false);
    if (queue === undefined || limit <= 0) return [];
    const due = [...queue.live.values()].filter((m) =>
      m.visibleAt <= now && !skip.includes(m.meta.functionId)
    );
    due.sort((a, b) => a.visibleAt - b.visibleAt || a.seq - b.seq);
    return due.slice(0, limit).map((m) => {
      m.lease = `memory-${++this.#leases}`;
      m.visibleAt = leaseUntil;
      return { ...structuredClone(m.meta), data: parseExact(m.dataText), lease: m.lease };
    });
  }

  ack(queueName: string, id: string, lease: string): boolean {
    const queue = this.#queue(queueName, false);
    const live = queue?.live.get(id);
    if (queue === undefined || live?.lease !== lease) return false;
    queue.live.delete(id);
    return true;
  }

  reschedule(queueName: string, id: string, lease: string, change: Reschedule): boolean {
    const live = this.#queue(queueName, false)?.live.get(id);
    if (live === undefined || live.lease !== lease) return false;
    delete live.lease;
    live.visibleAt = change.visibleAt;
    live.meta.attempts = change.attempts;
    if (change.lastError === undefined) delete live.meta.lastError;
    else live.meta.lastError = structuredClone(change.lastError);
    return true;
  }

  bury(
    queueName: string,
    id: string,
    lease: string,
    end: { attempts: number; lastError: ErrorBody; failedAt: number },
  ): boolean {
    const queue = this.#queue(queueName, false);
    const live = queue?.live.get(id);
    if (queue === undefined || live === undefined || live.lease !== lease) return false;
    queue.live.delete(id);
    const lastError = structuredClone(end.lastError);
    queue.dead.set(id, {
      meta: { ...live.meta, attempts: end.attempts, lastError },
      dataText: live.dataText,
      lastError,
      failedAt: end.failedAt,
    });
    return true;
  }

  nextDue(queueName: string): number | undefined {
    let next: number | undefined;
    for (const m of this.#queue(queueName, false)?.live.values() ?? []) {
      if (next === undefined || m.visibleAt < next) next = m.visibleAt;
    }
    return next;
  }

  queues(): string[] {
    this.#check();
    return [...this.#queues.keys()].sort();
  }

  liveQueues(): string[] {
    this.#check();
    return [...this.#queues].filter(([, queue]) => queue.live.size > 0).map(([name]) => name)
      .sort();
  }

  forget(queueName: string): boolean {
    const queue = this.#queue(queueName, false);
    if (queue === undefined) return true;
    if (queue.live.size > 0 || queue.dead.size > 0) return false;
    this.#queues.delete(queueName);
    return true;
  }

  counts(queueName: string, now: number): QueueCounts {
    const queue = this.#queue(queueName, false);
    let inFlight = 0;
    for (const m of queue?.live.values() ?? []) {
      if (m.lease !== undefined && m.visibleAt > now) inFlight++;
    }
    return {
      depth: (queue?.live.size ?? 0) - inFlight,
      inFlight,
      deadLetters: queue?.dead.size ?? 0,
    };
  }

  deadLetters(queueName: string, limit: number, page: DeadLetterPage = {}): DeadLetterList {
    const sign = page.newestFirst ? -1 : 1;
    const order = (a: Dead, b: Dead) => sign * compareDeadLetters(cursorOf(a), cursorOf(b));
    let dead = [...(this.#queue(queueName, false)?.dead.values() ?? [])].sort(order);
    const total = dead.length;
    const after = page.after;
    if (after !== undefined) {
      dead = dead.filter((d) => sign * compareDeadLetters(cursorOf(d), after) > 0);
    }
    const letters = dead.slice(0, limit).map((d) => ({
      ...structuredClone(d.meta),
      data: parseExact(d.dataText),
      lastError: structuredClone(d.lastError),
      failedAt: d.failedAt,
    }));
    return { letters, total };
  }

  redrive(queueName: string, id: string | undefined, now: number, cut: DeadLetterCut = {}): number {
    const queue = this.#queue(queueName, false);
    if (queue === undefined) return 0;
    const ids = id === undefined ? this.#taken(queue, cut) : queue.dead.has(id) ? [id] : [];
    for (const key of ids) {
      const dead = queue.dead.get(key)!;
      queue.dead.delete(key);
      const meta = { ...dead.meta, attempts: 0 };
      delete meta.lastError;
      queue.live.set(key, { meta, dataText: dead.dataText, visibleAt: now, seq: ++this.#seq });
    }
    return ids.length;
  }

  discard(queueName: string, id: string): boolean {
    return this.#queue(queueName, false)?.dead.delete(id) ?? false;
  }

  discardAll(queueName: string, cut: DeadLetterCut = {}): number {
    const queue = this.#queue(queueName, false);
    if (queue === undefined) return 0;
    const ids = this.#taken(queue, cut);
    for (const key of ids) queue.dead.delete(key);
    return ids.length;
  }

  /** The ids of the dead letters of `queue` that `cut` takes, in the order they were buried. */
  #taken(queue: Queue, cut: DeadLetterCut): string[] {
    const before = cut.failedBefore ?? Infinity;
    return [...queue.dead.values()].filter((d) => d.failedAt < before).map((d) => d.meta.id);
  }

  close(): void {
    this.#closed = true;
    this.#queues.clear();
  }

  #queue(name: string, create: true): Queue;
  #queue(name: string, create: false): Queue | undefined;
  #queue(name: string, create: boolean): Queue | undefined {
    this.#check();
    let queue = this.#queues.get(name);
    if (queue === undefined && create) {
      queue = { live: new Map(), dead: new Map() };
      this.#queues.set(name, queue);
    }
    return queue;
  }

  #check(): void {
    if (this.#closed) throw new Error("The memory queue store is closed");
  }
}

function cursorOf(dead: Dead): { failedAt: number; id: string } {
  return { failedAt: dead.failedAt, id: dead.meta.id };
}

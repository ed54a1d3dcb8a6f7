/**
 * The contract every queue adapter (SQLite, memory, Redis) implements.
 *
 * A message lives in one queue until it is acknowledged, or until it becomes
 * a dead letter. Each live message has a `visibleAt` time: it can be claimed
 * once that time has come. Claiming gives it a fresh lease token and hides it
 * until `leaseUntil`; a claimed message whose lease runs out is due again, which
 * is how messages claimed by an engine that died are delivered after all.
 * `ack`, `reschedule` and `bury` take the lease token and do nothing (answer
 * `false`) when it is no longer the message's current lease.
 *
 * Payloads are stored as their JSON text and parsed on the way out, so a read
 * never hands out an object someone else could change in place.
 *
 * @module
 */

import type { ErrorBody } from "../../../engine/api.ts";

/** A result adapters may hand back at once (SQLite, memory) or later (Redis). */
export type Awaitable<T> = T | Promise<T>;

/** A message as `enqueue` receives it. */
export interface NewMessage {
  /** The receipt id; unique within its queue. */
  id: string;
  queue: string;
  functionId: string;
  /** The payload's compact JSON text. */
  dataText: string;
  enqueuedAt: number;
  traceparent?: string;
  baggage?: string;
}

/** What a queue knows about a message besides its payload. */
export interface MessageMeta {
  id: string;
  queue: string;
  functionId: string;
  enqueuedAt: number;
  /** Deliveries that ended in failure so far. */
  attempts: number;
  lastError?: ErrorBody;
  traceparent?: string;
  baggage?: string;
}

/** A message handed out by `claim`. */
export interface ClaimedMessage extends MessageMeta {
  data: unknown;
  /** The token `ack`, `reschedule` and `bury` must present. */
  lease: string;
}

/** A message that used all its attempts. */
export interface DeadLetter extends MessageMeta {
  data: unknown;
  lastError: ErrorBody;
  failedAt: number;
}

/** A place in the failure order of a queue's dead letters: a letter's failure time and id. */
export interface DeadLetterCursor {
  failedAt: number;
  id: string;
}

/** Which page of dead letters `deadLetters` answers. */
export interface DeadLetterPage {
  /** Newest failure first (the failure order reversed). */
  newestFirst?: boolean;
  /** Only the letters after this place, in the order asked for. */
  after?: DeadLetterCursor;
}

/** A page of a queue's dead letters, and how many it has: one snapshot. */
export interface DeadLetterList {
  letters: DeadLetter[];
  /** The queue's dead letters when the page was read, on it or not. */
  total: number;
}

/** Which dead letters `redrive` and `discardAll` take when they take all. */
export interface DeadLetterCut {
  /** Only those with `failedAt` < this time (ms since the epoch). */
  failedBefore?: number;
}

/**
 * The failure order every adapter lists dead letters in: by failure time,
 * then by id in code point order (the byte order of their UTF-8, as SQLite
 * and Redis compare them).
 */
export function compareDeadLetters(a: DeadLetterCursor, b: DeadLetterCursor): number {
  return a.failedAt - b.failedAt || compareCodePoints(a.id, b.id);
}

/** `a` before `b` (negative), equal (0) or after, by code points. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  while (true) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return p.done ? (q.done ? 0 : -1) : 1;
    const diff = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
}

/** The sizes of one queue. */
export interface QueueCounts {
  /** Live messages not being delivered: ready, waiting for a retry, or with an expired lease. */
  depth: number;
  /** Claimed messages whose lease has not run out. */
  inFlight: number;
  deadLetters: number;
}

/** How `reschedule` changes a claimed message. */
export interface Reschedule {
  /** The new count of failed deliveries. */
  attempts: number;
  visibleAt: number;
  lastError?: ErrorBody;
}

/**
 * A durable store of queued messages. Methods may answer synchronously (and
 * throw synchronously): always `await` them. Every method is atomic on its
 * own, also against other processes sharing the back end. An answered
 * `enqueue` is stored durably.
 */
export interface QueueStore {
  /** The adapter's name: `sqlite`, `memory` or `redis`. */
  readonly adapter: string;
  /** Whether `claim` leaves the messages of its `skip` functions alone. */
  readonly claimSkips?: boolean;
  /** Stores a message, due at once; `false` (and nothing changes) when its id is already in the queue. */
  enqueue(message: NewMessage): Awaitable<boolean>;
  /**
   * Claims up to `limit` messages of `queue` due at `now`, the earliest due
   * first, hiding each until `leaseUntil`. Messages for the functions in
   * `skip` (not registered here) are left as they are, not claimed: a backlog
   * waiting for its worker is not rewritten at every poll. An adapter may
   * claim them anyway (Redis, past a run of `SKIP_WINDOW` of them): the
   * dispatcher then puts them back behind the rest.
   */
  claim(
    queue: string,
    now: number,
    limit: number,
    leaseUntil: number,
    skip?: readonly string[],
  ): Awaitable<ClaimedMessage[]>;
  /** Removes a delivered message. */
  ack(queue: string, id: string, lease: string): Awaitable<boolean>;
  /** Releases a claimed message to be due again at `change.visibleAt`. */
  reschedule(queue: string, id: string, lease: string, change: Reschedule): Awaitable<boolean>;
  /** Moves a claimed message to the queue's dead letters. */
  bury(
    queue: string,
    id: string,
    lease: string,
    end: { attempts: number; lastError: ErrorBody; failedAt: number },
  ): Awaitable<boolean>;
  /** When the next live message of `queue` becomes due (a lease's end included), if any. */
  nextDue(queue: string): Awaitable<number | undefined>;
  /** Every queue that holds or held a message and was not forgotten since, sorted. */
  queues(): Awaitable<string[]>;
  /**
   * The queues holding at least one live message (ready, waiting or claimed),
   * sorted: what a poll looks at, whatever the number of queues ever used.
   */
  liveQueues(): Awaitable<string[]>;
  /**
   * Forgets the name of `queue` when it holds nothing, no live message and no
   * dead letter (atomically, also against other processes): `queues()` no
   * longer lists it, until a message is stored in it again. Answers `false`
   * (and forgets nothing) when it holds something.
   */
  forget(queue: string): Awaitable<boolean>;
  counts(queue: string, now: number): Awaitable<QueueCounts>;
  /**
   * At most `limit` of the queue's dead letters in failure order (see
   * {@link compareDeadLetters}), oldest first unless `page.newestFirst`;
   * with `page.after`, only those that come after that position in this order
   * (the position need not be a letter still there); with the count of all
   * the queue's dead letters, read at the same moment (another process
   * burying or redriving meanwhile cannot make the two disagree).
   */
  deadLetters(queue: string, limit: number, page?: DeadLetterPage): Awaitable<DeadLetterList>;
  /**
   * Puts the dead letter `id` (or every one when `id` is undefined, only
   * those that failed before `cut.failedBefore` when given) back in its
   * queue, due at `now` with no failed attempts; answers how many moved.
   */
  redrive(
    queue: string,
    id: string | undefined,
    now: number,
    cut?: DeadLetterCut,
  ): Awaitable<number>;
  /** Deletes the dead letter `id`; `false` when there is none. */
  discard(queue: string, id: string): Awaitable<boolean>;
  /**
   * Deletes every dead letter of `queue` (only those that failed before
   * `cut.failedBefore` when given); answers how many.
   */
  discardAll(queue: string, cut?: DeadLetterCut): Awaitable<number>;
  /** Releases the back end; later calls fail. */
  close(): Awaitable<void>;
}

/**
 * The delivery loop: for each queue, claims due messages (at most
 * `concurrency` in flight), calls their functions, and records each outcome
 * as {@link decide} rules. One timer drives it all: it fires when the next
 * message of any queue comes due (a retry, a waiting message, a lease that
 * runs out), and at least every `pollMs` so messages another engine stored
 * in a shared back end are picked up too, in queues this engine knows and in
 * queues another engine created since.
 *
 * Only queues holding live messages are looked at (each poll asks the store
 * which do), so the work does not grow with the names ever used; a queue
 * empty and idle for {@link FORGET_AFTER_MS} is forgotten by the store too.
 *
 * Delivery is at least once: a message is deleted only after its function
 * answered, and a message claimed by an engine that died becomes due again
 * when its lease (`visibility_timeout_ms` plus {@link LEASE_GRACE_MS}) ends.
 *
 * @module
 */

import { loggedOutageOf } from "../_shared/store_outage.ts";
import type { ClaimedMessage } from "./adapters/store.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { QueueSettings } from "./config.ts";
import { FORGET_AFTER_MS, IdleQueues } from "./idle.ts";
import { isIdle, newQueueState, type QueueState } from "./queue_state.ts";
import { bodyOf, messageOf, notRegistered, stopped } from "./delivery_errors.ts";
import { decide, type DeliveryOutcome, functionWaitDelay } from "./retry.ts";
import type { DispatcherOptions } from "./dispatcher_types.ts";

export type { DeliveryEvent, DeliveryTarget, DispatcherOptions } from "./dispatcher_types.ts";

/** A lease outlives the delivery's time-out by this much, so the time-out decides first. */
export const LEASE_GRACE_MS = 1000;

/** The delivery loop of every queue of one worker. */
export class Dispatcher {
  readonly #o: DispatcherOptions;
  readonly #clock: Clock;
  readonly #queues = new Map<string, QueueState>();
  readonly #deliveries = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #timer: unknown;
  #timerAt = Infinity;
  #planning = false;
  /** What the running or next planning pass looks at: every queue, or just these. */
  #planAll = false;
  #planQueues = new Set<string>();
  #busy = 0;
  #idle: (() => void)[] = [];
  #stopping = false;
  /** When {@link #discover} last read the store's queue names. */
  #discoveredAt = -Infinity;
  /** Queues found empty with nothing in flight, waiting to be forgotten. */
  readonly #idleQueues = new IdleQueues();
  #sweeping = false;

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Starts delivering `queues` (and any queue {@link notify} names later). */
  start(queues: Iterable<string>): void {
    for (const queue of queues) this.notify(queue);
    this.#plan();
  }

  /**
   * Says that `queue` may have new messages due now. Notices arriving in one
   * turn of the event loop (enqueues, finished deliveries) make one claim.
   */
  notify(queue: string): void {
    if (this.#stopping) return;
    this.#idleQueues.clear(queue);
    const state = this.#state(queue);
    if (state.scheduled) return;
    state.scheduled = true;
    this.#busy++;
    this.#clock.soon(() => {
      state.scheduled = false;
      void this.#pump(queue);
      this.#done();
    });
  }

  /** Says `queue` was used without messages to deliver: it is forgotten once idle for `forgetAfterMs`. */
  touch(queue: string): void {
    if (this.#stopping || this.#queues.has(queue)) return;
    this.#idleQueues.mark(queue, this.#clock.now());
  }

  /** Queues waiting to be forgotten (for tests). */
  get idleQueues(): number {
    return this.#idleQueues.size;
  }

  /** Deliveries of `queue` in flight from this worker. */
  inFlight(queue: string): number {
    return this.#queues.get(queue)?.inFlight ?? 0;
  }

  /** The queues this loop delivers: those with live messages or deliveries in flight. */
  get queues(): string[] {
    return [...this.#queues.keys()];
  }

  /** Resolves once no claim, outcome write or timer planning is under way. */
  idle(): Promise<void> {
    if (this.#busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Stops claiming, lets deliveries in flight finish for the grace period,
   * then stops the rest; their messages are released without using an
   * attempt. The store stays open (the caller closes it).
   */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const grace = this.#o.shutdownGraceMs ?? 5000;
    if (this.#deliveries.size > 0) {
      const count = this.#deliveries.size === 1
        ? "1 delivery"
        : `${this.#deliveries.size} deliveries`;
      this.#o.log.info(
        `Queue worker stopping: waiting up to ${grace} ms for ${count} in flight; enqueues are still stored`,
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.#deliveries]),
      new Promise((resolve) => timer = setTimeout(resolve, grace)),
    ]);
    clearTimeout(timer);
    this.#abort.abort(new Error("the queue worker is stopping"));
    while (this.#deliveries.size > 0 || this.#busy > 0) {
      await Promise.allSettled([...this.#deliveries]);
      await this.idle();
    }
  }

  #state(queue: string): QueueState {
    let state = this.#queues.get(queue);
    if (state === undefined) {
      state = newQueueState();
      this.#queues.set(queue, state);
    }
    return state;
  }

  async #pump(queue: string): Promise<void> {
    const state = this.#state(queue);
    if (state.pumping) {
      state.again = true;
      return;
    }
    state.pumping = true;
    this.#busy++;
    const settings = this.#o.settingsOf(queue);
    try {
      for (const functionId of state.missing) {
        if (this.#o.target.hasFunction(functionId)) state.missing.delete(functionId);
      }
      while (!this.#stopping) {
        state.again = false;
        const free = settings.concurrency - state.inFlight;
        if (free <= 0) break;
        const now = this.#clock.now();
        const leaseUntil = now + settings.visibility_timeout_ms + LEASE_GRACE_MS;
        const skip = [...state.missing];
        const claimed = await this.#o.store.claim(queue, now, free, leaseUntil, skip);
        state.retryAt = 0;
        for (const message of claimed) {
          // Handed out although skipped (Redis, past its window): it is to go behind the rest.
          this.#deliver(message, settings, skip.includes(message.functionId));
        }
        if (!state.again && claimed.length < free) break;
      }
      // Messages left for a missing function are due: the timer would fire for them at once.
      if (state.missing.size > 0) {
        state.retryAt = this.#clock.now() + functionWaitDelay(settings);
      }
    } catch (error) {
      state.retryAt = this.#clock.now() + (this.#o.pollMs ?? 1000);
      // A store outage is logged by the store, once: not at every claim of every queue.
      if (loggedOutageOf(error) === undefined) {
        this.#o.log.error(`Cannot claim messages of queue "${queue}": ${messageOf(error)}`);
      }
    } finally {
      state.pumping = false;
      // Only this queue's due times changed: the others' are planned already.
      this.#plan(queue);
      this.#done();
    }
  }

  #deliver(message: ClaimedMessage, settings: QueueSettings, skipped: boolean): void {
    const state = this.#state(message.queue);
    state.inFlight++;
    const delivery: Promise<void> = this.#run(message, settings, skipped, (waiting) => {
      state.inFlight--;
      this.#deliveries.delete(delivery);
      // Pump (or plan) before the busy count can drop to zero, so `idle()` covers the next claim.
      // A message put back to wait claims no next one at once (it may be handed out again).
      if (waiting) this.#plan(message.queue);
      else this.notify(message.queue);
    });
    this.#deliveries.add(delivery);
  }

  async #run(
    message: ClaimedMessage,
    settings: QueueSettings,
    skipped: boolean,
    finished: (waiting: boolean) => void,
  ): Promise<void> {
    const { target } = this.#o;
    let outcome: DeliveryOutcome;
    // Stopped by the shutdown rather than failed: the message goes back as it was.
    let released = this.#stopping;
    if (released) {
      outcome = { ok: false, error: stopped(), functionMissing: false };
    } else if (!target.hasFunction(message.functionId)) {
      outcome = { ok: false, error: notRegistered(message.functionId), functionMissing: true };
      this.#state(message.queue).missing.add(message.functionId);
    } else {
      try {
        await target.call(message.functionId, message.data, {
          timeoutMs: settings.visibility_timeout_ms,
          signal: this.#abort.signal,
          ...(message.traceparent === undefined
            ? {}
            : { traceparent: message.traceparent, trace: "async" as const }),
          ...(message.baggage === undefined ? {} : { baggage: message.baggage }),
        });
        outcome = { ok: true };
      } catch (error) {
        released = this.#abort.signal.aborted;
        const body = bodyOf(error);
        const functionMissing = body.code === "function_not_found" &&
          !target.hasFunction(message.functionId);
        if (functionMissing) this.#state(message.queue).missing.add(message.functionId);
        outcome = { ok: false, error: body, functionMissing };
      }
    }
    this.#busy++;
    try {
      await this.#record(message, settings, outcome, released, skipped);
    } catch (error) {
      if (loggedOutageOf(error) !== undefined) return;
      this.#o.log.error(
        `Cannot record the delivery of message "${message.id}" of queue "${message.queue}": ${
          messageOf(error)
        }: it is delivered again when its lease ends`,
      );
    } finally {
      finished(!outcome.ok && outcome.functionMissing && !released);
      this.#done();
    }
  }

  async #record(
    message: ClaimedMessage,
    settings: QueueSettings,
    outcome: DeliveryOutcome,
    released: boolean,
    skipped: boolean,
  ): Promise<void> {
    const { store } = this.#o;
    const { queue, id, lease } = message;
    const now = this.#clock.now();
    if (!outcome.ok && released) {
      await store.reschedule(queue, id, lease, {
        attempts: message.attempts,
        // Due at once, in its arrival place: a queue of concurrency 1 keeps its order over a restart.
        visibleAt: Math.min(now, message.enqueuedAt),
        ...(message.lastError === undefined ? {} : { lastError: message.lastError }),
      });
      return;
    }
    const verdict = decide(outcome, message.attempts, settings, now);
    let recorded: boolean;
    switch (verdict.kind) {
      case "ack":
        recorded = await store.ack(queue, id, lease);
        break;
      case "retry":
        recorded = await store.reschedule(queue, id, lease, verdict);
        break;
      case "wait":
        // Where claims skip its function from now on, it keeps its arrival place for when it
        // comes; a message handed out although skipped (a store that does not skip, or Redis
        // past its window) goes behind, or it would be claimed again before the rest.
        recorded = await store.reschedule(queue, id, lease, {
          ...verdict,
          ...(store.claimSkips && !skipped
            ? { visibleAt: Math.min(verdict.visibleAt, message.enqueuedAt) }
            : {}),
        });
        break;
      case "bury":
        recorded = await store.bury(queue, id, lease, verdict);
        this.#o.log.warn(
          `Message "${id}" of queue "${queue}" is now a dead letter after ${verdict.attempts} attempts: ${verdict.lastError.code}: ${verdict.lastError.message}`,
          { queue, message_id: id, function_id: message.functionId },
        );
        break;
    }
    if (!recorded) {
      this.#o.log.warn(
        `Message "${id}" of queue "${queue}" was claimed again before its delivery ended: its lease ran out`,
      );
      return;
    }
    this.#o.onEvent?.({
      queue,
      id,
      kind: verdict.kind,
      attempts: verdict.kind === "ack" ? message.attempts : verdict.attempts,
      ...(verdict.kind === "ack" ? {} : { error: verdict.lastError }),
    });
  }

  /**
   * Sets the one timer for when the next message of `queue` (of every queue
   * when none is named) comes due, at the latest one poll from now
   * (coalesced). The timer only ever moves earlier, and when it fires it
   * plans every queue again, so planning one queue leaves the others' due
   * times covered.
   */
  #plan(queue?: string): void {
    if (this.#stopping) return;
    if (queue === undefined) this.#planAll = true;
    else this.#planQueues.add(queue);
    if (this.#planning) return;
    this.#planning = true;
    this.#busy++;
    (async () => {
      try {
        while ((this.#planAll || this.#planQueues.size > 0) && !this.#stopping) {
          const queues = this.#planAll ? [...this.#queues.keys()] : [...this.#planQueues];
          this.#planAll = false;
          this.#planQueues.clear();
          let next = this.#clock.now() + (this.#o.pollMs ?? 1000);
          for (const queue of queues) next = Math.min(next, await this.#dueOf(queue));
          this.#arm(next);
        }
      } catch (error) {
        if (loggedOutageOf(error) === undefined) {
          this.#o.log.error(`Cannot plan the next deliveries: ${messageOf(error)}`);
        }
        // The poll plans every queue again.
        this.#planAll = false;
        this.#planQueues.clear();
        this.#arm(this.#clock.now() + (this.#o.pollMs ?? 1000));
      } finally {
        // At once, not a turn later: a plan asked for meanwhile would be dropped.
        this.#planning = false;
        this.#done();
      }
    })();
  }

  /**
   * When `queue` next needs a claim (Infinity: not before the poll). An empty
   * queue with nothing under way is dropped: looked at again when notified or
   * found live in the store.
   */
  async #dueOf(queue: string): Promise<number> {
    const state = this.#queues.get(queue);
    if (state === undefined) return Infinity;
    if (state.pumping || state.inFlight >= this.#o.settingsOf(queue).concurrency) return Infinity;
    const due = await this.#o.store.nextDue(queue);
    if (due !== undefined) return Math.max(due, state.retryAt);
    if (this.#queues.get(queue) === state && isIdle(state)) {
      this.#queues.delete(queue);
      this.#idleQueues.mark(queue, this.#clock.now());
    }
    return Infinity;
  }

  #arm(at: number): void {
    if (this.#stopping) return;
    if (this.#timer !== undefined) {
      if (this.#timerAt <= at) return;
      this.#clock.clearTimeout(this.#timer);
    }
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      for (const queue of this.#queues.keys()) this.notify(queue);
      this.#discover();
      this.#sweep();
      this.#plan();
    }, Math.max(1, at - this.#clock.now()));
  }

  /**
   * Looks for queues with live messages this loop does not deliver (at most
   * once a poll): stored by another engine sharing the store, in a queue it
   * created or in one this loop found empty before. Without it, such a queue
   * waits for that engine's consumers alone.
   */
  #discover(): void {
    const now = this.#clock.now();
    if (now - this.#discoveredAt < (this.#o.pollMs ?? 1000)) return;
    this.#discoveredAt = now;
    this.#busy++;
    (async () => {
      for (const queue of await this.#o.store.liveQueues()) {
        if (!this.#queues.has(queue)) this.notify(queue);
      }
    })().catch(() => {
      // The claims of the known queues report the store's trouble; one line each poll is enough.
    }).finally(() => this.#done());
  }

  /**
   * Forgets the queues idle for `forgetAfterMs` (one sweep at a time): the
   * store keeps one holding something (a dead letter, another engine's message).
   */
  #sweep(): void {
    if (this.#sweeping) return;
    const after = this.#o.forgetAfterMs ?? FORGET_AFTER_MS;
    const expired = this.#idleQueues.expired(this.#clock.now(), after);
    if (expired.length === 0) return;
    this.#sweeping = true;
    this.#busy++;
    let done = 0;
    (async () => {
      for (const queue of expired) {
        if (this.#stopping) return;
        if (!this.#queues.has(queue) && !this.#idleQueues.has(queue)) {
          const forgotten = await this.#o.store.forget(queue);
          if (forgotten && !this.#queues.has(queue) && !this.#idleQueues.has(queue)) {
            this.#o.onForget?.(queue);
          }
        }
        done++;
      }
    })().catch((error) => {
      // Tried again after the next idle period.
      for (const queue of expired.slice(done)) this.touch(queue);
      if (loggedOutageOf(error) === undefined) {
        this.#o.log.error(`Cannot forget the empty queues: ${messageOf(error)}`);
      }
    }).finally(() => {
      this.#sweeping = false;
      this.#done();
    });
  }

  #done(): void {
    if (--this.#busy > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}

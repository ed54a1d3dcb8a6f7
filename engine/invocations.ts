/**
 * Calls in flight: their ids, deadlines and where the outcome goes. Every
 * call ends exactly once: with the target's result, with
 * `invocation_stopped` when the target goes away, or with
 * `invocation_timeout` at the deadline (a late result is dropped).
 *
 * Deadlines share one timer instead of a timer per call (a `setTimeout` and
 * `clearTimeout` pair per call was several µs of every routed call). Calls
 * with the same time-out length expire in the order they started, so each
 * length keeps its calls in a set in insertion order, and the timer is armed
 * for the earliest head; a call that ends early leaves it armed, and the
 * timer re-arms for the next head when it fires. When no call is in flight
 * the timer stays armed but unref'd (it does not hold the process open) and
 * lapses on its own: a caller making one call at a time does not pay for a
 * timer per call either.
 *
 * @module
 */
import type { ErrorBody } from "./api.ts";

export type Outcome =
  | {
    ok: true;
    result: unknown;
    /**
     * The text of the worker's `invocationresult` frame: a worker that made
     * the call gets `result` as the text it holds (see `member_text.ts`), read
     * from it only then (a built-in caller takes `result` itself).
     */
    frameText?: string;
    traceparent?: string;
  }
  | { ok: false; error: ErrorBody };

export interface Invocation {
  id: string;
  functionId: string;
  /** The worker id running the call. */
  target: string;
  /** The worker id that made the call, if a worker did. */
  caller: string | undefined;
  start: number;
  /** The engine-side time-out of this call, in ms. */
  timeoutMs: number;
  /** Whether `timeoutMs` is the engine's `invocation_timeout_ms` (the caller chose none). */
  engineDeadline?: boolean;
  /** When it expires, on the `performance.now()` clock. */
  deadline: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /**
   * Whether the call is recorded as a span when it ends; `"async"`: recorded
   * as a call its caller does not wait for (`call_span.ts`).
   */
  traced: boolean | "async";
  /**
   * The `invokefunction` frame's text as it went to a worker, kept only while
   * another replica could take the call if this one answers `shutdown` (it
   * never ran there): see `Engine.settle`. Sent on once, then dropped.
   */
  retryText?: string | undefined;
  settle: (outcome: Outcome) => void;
}

/** The longest delay `setTimeout` takes; longer deadlines re-arm when it fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class Invocations {
  #emptyWaiters: (() => void)[] = [];
  #pending = new Map<string, Invocation>();
  #byTarget = new Map<string, Set<Invocation>>();
  /** Calls by time-out length, each set in deadline order. */
  #byTimeout = new Map<number, Set<Invocation>>();
  #onExpire: (inv: Invocation) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;

  /** `onExpire` is called for each call whose deadline passed; it should end it. */
  constructor(onExpire: (inv: Invocation) => void = () => {}) {
    this.#onExpire = onExpire;
  }

  add(inv: Invocation): void {
    if (this.#pending.size === 0 && this.#timer !== undefined) Deno.refTimer(this.#timer);
    this.#pending.set(inv.id, inv);
    let set = this.#byTarget.get(inv.target);
    if (!set) this.#byTarget.set(inv.target, set = new Set());
    set.add(inv);
    let queue = this.#byTimeout.get(inv.timeoutMs);
    if (!queue) this.#byTimeout.set(inv.timeoutMs, queue = new Set());
    queue.add(inv);
    if (inv.deadline < this.#timerAt) this.#arm(inv.deadline);
  }

  /**
   * Removes and returns the invocation, or undefined if it already ended.
   * With `target`, only a call that worker runs is removed (a result from
   * anyone else leaves it in flight).
   */
  take(id: string, target?: string): Invocation | undefined {
    const inv = this.#pending.get(id);
    if (!inv || (target !== undefined && inv.target !== target)) return undefined;
    this.#pending.delete(id);
    const set = this.#byTarget.get(inv.target);
    if (set) {
      set.delete(inv);
      if (set.size === 0) this.#byTarget.delete(inv.target);
    }
    const queue = this.#byTimeout.get(inv.timeoutMs);
    if (queue) {
      queue.delete(inv);
      if (queue.size === 0) this.#byTimeout.delete(inv.timeoutMs);
    }
    if (this.#pending.size === 0) {
      if (this.#timer !== undefined) Deno.unrefTimer(this.#timer);
      // Checked first: a call ending with none other in flight is the usual case, and it
      // must not allocate.
      if (this.#emptyWaiters.length > 0) {
        for (const resolve of this.#emptyWaiters.splice(0)) resolve();
      }
    }
    return inv;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, Math.ceil(at - performance.now())));
    this.#timer = setTimeout(() => this.#expire(), delay);
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = performance.now();
    const expired: Invocation[] = [];
    let next = Infinity;
    for (const queue of this.#byTimeout.values()) {
      for (const inv of queue) {
        if (inv.deadline > now) {
          next = Math.min(next, inv.deadline);
          break;
        }
        expired.push(inv);
      }
    }
    if (next < Infinity) this.#arm(next);
    for (const inv of expired) this.#onExpire(inv);
  }

  get(id: string): Invocation | undefined {
    return this.#pending.get(id);
  }

  /** Moves a call in flight to another worker (its deadline stays). */
  retarget(inv: Invocation, target: string): void {
    const set = this.#byTarget.get(inv.target);
    if (set) {
      set.delete(inv);
      if (set.size === 0) this.#byTarget.delete(inv.target);
    }
    inv.target = target;
    let next = this.#byTarget.get(target);
    if (!next) this.#byTarget.set(target, next = new Set());
    next.add(inv);
  }

  /** How many calls `target` is running. */
  inFlight(target: string): number {
    return this.#byTarget.get(target)?.size ?? 0;
  }

  /** The ids of the calls `target` is running. */
  ofTarget(target: string): string[] {
    return [...(this.#byTarget.get(target) ?? [])].map((i) => i.id);
  }

  /** The calls in flight in trace `traceId` (a scan: for the rare reader, not per call). */
  ofTrace(traceId: string): Invocation[] {
    const out: Invocation[] = [];
    for (const inv of this.#pending.values()) if (inv.traceId === traceId) out.push(inv);
    return out;
  }

  ids(): string[] {
    return [...this.#pending.keys()];
  }

  /** Calls in flight per function id. */
  perFunction(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const inv of this.#pending.values()) out[inv.functionId] = (out[inv.functionId] ?? 0) + 1;
    return out;
  }

  /** Resolves once no call is in flight (at once if none is). */
  whenEmpty(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#emptyWaiters.push(resolve));
  }

  get size(): number {
    return this.#pending.size;
  }
}

/**
 * Calls in flight: their ids, deadlines and where the outcome goes. Every
 * call ends exactly once: with the target's result, with
 * `invocation_stopped` when the target goes away, or with
 * `invocation_timeout` at the deadline (a late result is dropped).
 *
 * @module
 */
import type { ErrorBody } from "./api.ts";

export type Outcome =
  | { ok: true; result: unknown; traceparent?: string }
  | { ok: false; error: ErrorBody };

export interface Invocation {
  id: string;
  functionId: string;
  /** The worker id running the call. */
  target: string;
  /** The worker id that made the call, if a worker did. */
  caller: string | undefined;
  start: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /** Whether the call is recorded as a span when it ends. */
  traced: boolean;
  settle: (outcome: Outcome) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class Invocations {
  #pending = new Map<string, Invocation>();
  #byTarget = new Map<string, Set<Invocation>>();

  add(inv: Invocation): void {
    this.#pending.set(inv.id, inv);
    let set = this.#byTarget.get(inv.target);
    if (!set) this.#byTarget.set(inv.target, set = new Set());
    set.add(inv);
  }

  /** Removes and returns the invocation, or undefined if it already ended. */
  take(id: string): Invocation | undefined {
    const inv = this.#pending.get(id);
    if (!inv) return undefined;
    this.#pending.delete(id);
    const set = this.#byTarget.get(inv.target);
    if (set) {
      set.delete(inv);
      if (set.size === 0) this.#byTarget.delete(inv.target);
    }
    if (inv.timer !== undefined) clearTimeout(inv.timer);
    return inv;
  }

  get(id: string): Invocation | undefined {
    return this.#pending.get(id);
  }

  /** How many calls `target` is running. */
  inFlight(target: string): number {
    return this.#byTarget.get(target)?.size ?? 0;
  }

  /** The ids of the calls `target` is running. */
  ofTarget(target: string): string[] {
    return [...(this.#byTarget.get(target) ?? [])].map((i) => i.id);
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

  get size(): number {
    return this.#pending.size;
  }
}

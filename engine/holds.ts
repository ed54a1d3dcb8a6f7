/**
 * Calls to functions that are away for a moment, held until they are back.
 *
 * A config reload restarts a built-in worker by stopping it and starting it
 * with its new config: for the few milliseconds in between (longer when its
 * store is slow to open), its functions are not registered. A call made then
 * would fail with `function_not_found` although nothing is wrong; instead it
 * waits, within its own time-out, and is routed once the hold is released
 * (to the restarted worker, or to `function_not_found` if it did not come back).
 *
 * Pure: the engine passes in how to route a released call and how to end one.
 *
 * @module
 */
import type { CallRequest, Outcome } from "./core.ts";

/** A call waiting for its function. */
export interface HeldCall {
  id: string;
  req: CallRequest;
  settle: (outcome: Outcome) => void;
  /** `performance.now()` by which the call must have ended. */
  deadline: number;
  timer: ReturnType<typeof setTimeout>;
}

export interface HoldsOptions {
  /** Routes a released call under its id, with the time it has left. */
  route(call: HeldCall, remainingMs: number): void;
  /** Ends a call that ran out of time while held. */
  expire(call: HeldCall): void;
}

export class Holds {
  /** Function id → how many holds cover it. */
  #held = new Map<string, number>();
  #waiting = new Map<string, HeldCall>();
  #options: HoldsOptions;

  constructor(options: HoldsOptions) {
    this.#options = options;
  }

  /** Whether calls to `functionId` wait instead of failing. */
  covers(functionId: string): boolean {
    return this.#held.has(functionId);
  }

  /** Holds calls to `functionIds` until the returned function is called (once is enough). */
  hold(functionIds: Iterable<string>): () => void {
    const ids = [...new Set(functionIds)];
    for (const id of ids) this.#held.set(id, (this.#held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const freed = new Set<string>();
      for (const id of ids) {
        const n = this.#held.get(id)! - 1;
        if (n > 0) this.#held.set(id, n);
        else {
          this.#held.delete(id);
          freed.add(id);
        }
      }
      for (const call of [...this.#waiting.values()]) {
        if (!freed.has(call.req.functionId)) continue;
        this.take(call.id);
        this.#options.route(call, Math.max(0, call.deadline - performance.now()));
      }
    };
  }

  /** Makes `req` wait; it ends at its time-out if not released before. */
  wait(id: string, req: CallRequest, settle: (o: Outcome) => void, timeoutMs: number): void {
    const ms = Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0;
    const call: HeldCall = {
      id,
      req,
      settle,
      deadline: performance.now() + ms,
      timer: setTimeout(() => {
        if (this.take(id)) this.#options.expire(call);
      }, ms),
    };
    this.#waiting.set(id, call);
  }

  ids(): string[] {
    return [...this.#waiting.keys()];
  }

  /** Removes a waiting call (stopped, expired or released); `undefined` when it is not waiting. */
  take(id: string): HeldCall | undefined {
    const call = this.#waiting.get(id);
    if (!call) return undefined;
    this.#waiting.delete(id);
    clearTimeout(call.timer);
    return call;
  }
}

/**
 * Outbound calls: building the `invokefunction` frame of a `trigger()` and
 * the promises waiting for their `invocationresult`.
 *
 * @module
 */

import { EngineError } from "./errors.ts";
import type { InvocationScope } from "./trace.ts";
import type { TriggerRequest } from "./types.ts";

/**
 * The `invokefunction` text for `request`. Inside a handler (`scope`), the
 * call carries the handler's `traceparent` and `baggage` unchanged, so the
 * engine makes it a child span. Throws a `TypeError` naming the function
 * when the payload is not JSON-serializable.
 *
 * @example
 * ```ts
 * console.log(encodeInvoke({ function_id: "a::b", payload: { x: 1 } }, "id-1", undefined));
 * // {"type":"invokefunction","invocation_id":"id-1","function_id":"a::b","data":{"x":1}}
 * ```
 */
export function encodeInvoke(
  request: TriggerRequest,
  invocationId: string | undefined,
  scope: InvocationScope | undefined,
): string {
  const { function_id, payload, action, metadata } = request;
  // Field by field, in this order (no spreads: this runs once per call).
  const frame: Record<string, unknown> = { type: "invokefunction" };
  if (invocationId) frame.invocation_id = invocationId;
  frame.function_id = function_id;
  frame.data = payload === undefined ? null : payload;
  if (metadata !== undefined) frame.metadata = metadata;
  if (action) frame.action = action;
  if (scope?.traceparent) frame.traceparent = scope.traceparent;
  if (scope?.baggage) frame.baggage = scope.baggage;
  try {
    return JSON.stringify(frame);
  } catch (err) {
    throw new TypeError(
      `Payload for "${function_id}" is not JSON-serializable: ${(err as Error).message}`,
    );
  }
}

interface Pending {
  function_id: string;
  resolve(value: unknown): void;
  reject(error: EngineError): void;
  /** Milliseconds since the epoch. */
  deadline: number;
  timeoutMs: number;
  /** Whether the call went out on a connection (else it is still queued). */
  sent: boolean;
}

/** The longest delay `setTimeout` takes; a later deadline re-arms when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

type Timer = ReturnType<typeof setTimeout>;

/** Lets the process exit while only `timer` is pending (Node's `unref`, Deno's `unrefTimer`). */
function setRef(timer: Timer, ref: boolean): void {
  const t = timer as unknown as { ref?: () => void; unref?: () => void };
  if (typeof t.unref === "function") {
    if (ref) t.ref!();
    else t.unref();
    return;
  }
  const deno =
    (globalThis as { Deno?: { refTimer(id: number): void; unrefTimer(id: number): void } })
      .Deno;
  if (ref) deno?.refTimer(timer as unknown as number);
  else deno?.unrefTimer(timer as unknown as number);
}

/**
 * Calls waiting for their result, each with its own time-out. The deadlines
 * share one timer (a timer per call was a tenth of a busy caller's CPU); while
 * no call waits it stays armed but does not hold the process open.
 *
 * @example
 * ```ts
 * const calls = new PendingCalls();
 * const result = calls.wait("id-1", "math::add", 1000);
 * calls.settle({ type: "invocationresult", invocation_id: "id-1", result: 3 });
 * console.log(await result); // 3
 * ```
 */
export class PendingCalls {
  #pending = new Map<string, Pending>();
  #timer: Timer | undefined;
  #timerAt = Infinity;

  /**
   * Resolves with the call's result; rejects with `TIMEOUT` after `timeoutMs`.
   * `sent` says whether the call is already on the wire; a queued one is
   * marked with {@linkcode PendingCalls.markSent} when it goes out.
   */
  wait(
    invocationId: string,
    function_id: string,
    timeoutMs: number,
    sent = false,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      if (this.#pending.size === 0 && this.#timer !== undefined) setRef(this.#timer, true);
      const pending = { function_id, resolve, reject, deadline, timeoutMs, sent };
      this.#pending.set(invocationId, pending);
      if (deadline < this.#timerAt) this.#arm(deadline);
    });
  }

  /** Whether the call is still waiting (it has neither settled nor timed out). */
  has(invocationId: string): boolean {
    return this.#pending.has(invocationId);
  }

  /** Notes that the call goes out on the current connection; false if it no longer waits. */
  markSent(invocationId: string): boolean {
    const pending = this.#pending.get(invocationId);
    if (pending) pending.sent = true;
    return pending !== undefined;
  }

  /**
   * Rejects the calls that went out on a connection that has closed: no
   * result can reach them any more (the engine drops the answer to a gone
   * connection). Calls still queued for the next connection keep waiting.
   */
  rejectSent(code: string, message: (function_id: string) => string): void {
    for (const [id, p] of this.#pending) {
      if (!p.sent) continue;
      this.#pending.delete(id);
      p.reject(new EngineError(code, message(p.function_id), { function_id: p.function_id }));
    }
    if (this.#pending.size === 0 && this.#timer !== undefined) setRef(this.#timer, false);
  }

  /** Settles the call an `invocationresult` answers; unknown ids are ignored. */
  settle(msg: Record<string, unknown>): void {
    const id = msg.invocation_id;
    const pending = typeof id === "string" ? this.#pending.get(id) : undefined;
    if (!pending) return;
    this.#pending.delete(id as string);
    if (this.#pending.size === 0 && this.#timer !== undefined) setRef(this.#timer, false);
    if (msg.error) pending.reject(EngineError.fromBody(msg.error, pending.function_id));
    else pending.resolve(msg.result);
  }

  /** Rejects every waiting call with `code` and the `message` for its function. */
  rejectAll(code: string, message: (function_id: string) => string): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) {
      p.reject(new EngineError(code, message(p.function_id), { function_id: p.function_id }));
    }
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => this.#expire(),
      Math.min(MAX_DELAY, Math.max(0, at - Date.now())),
    );
    if (this.#pending.size === 0) setRef(this.#timer, false);
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [id, p] of this.#pending) {
      if (p.deadline > now) {
        next = Math.min(next, p.deadline);
        continue;
      }
      this.#pending.delete(id);
      // A call that never left the queue timed out because there was no connection, not because
      // the function was slow: say so.
      const why = p.sent ? "" : ": not connected to the engine, so the call was never sent";
      p.reject(
        new EngineError(
          "TIMEOUT",
          `Invocation of ${p.function_id} timed out after ${p.timeoutMs}ms${why}`,
          {
            function_id: p.function_id,
          },
        ),
      );
    }
    if (next < Infinity) this.#arm(next);
  }
}

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
  try {
    return JSON.stringify({
      type: "invokefunction",
      ...(invocationId ? { invocation_id: invocationId } : {}),
      function_id,
      data: payload === undefined ? null : payload,
      ...(metadata === undefined ? {} : { metadata }),
      ...(action ? { action } : {}),
      ...(scope?.traceparent ? { traceparent: scope.traceparent } : {}),
      ...(scope?.baggage ? { baggage: scope.baggage } : {}),
    });
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
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Calls waiting for their result, each with its own time-out.
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

  /** Resolves with the call's result; rejects with `TIMEOUT` after `timeoutMs`. */
  wait(invocationId: string, function_id: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(invocationId);
        reject(
          new EngineError("TIMEOUT", `invocation timed out after ${timeoutMs}ms`, { function_id }),
        );
      }, timeoutMs);
      this.#pending.set(invocationId, { function_id, resolve, reject, timer });
    });
  }

  /** Whether the call is still waiting (it has neither settled nor timed out). */
  has(invocationId: string): boolean {
    return this.#pending.has(invocationId);
  }

  /** Settles the call an `invocationresult` answers; unknown ids are ignored. */
  settle(msg: Record<string, unknown>): void {
    const id = msg.invocation_id;
    const pending = typeof id === "string" ? this.#pending.get(id) : undefined;
    if (!pending) return;
    this.#pending.delete(id as string);
    clearTimeout(pending.timer);
    if (msg.error) pending.reject(EngineError.fromBody(msg.error, pending.function_id));
    else pending.resolve(msg.result);
  }

  /** Rejects every waiting call with `code` and `message`. */
  rejectAll(code: string, message: string): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new EngineError(code, message, { function_id: pending.function_id }));
    }
    this.#pending.clear();
  }
}

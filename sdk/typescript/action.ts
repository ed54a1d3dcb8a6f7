/**
 * Values for the `action` of a `trigger()` call.
 *
 * @module
 */

import type { TriggerActionValue } from "./types.ts";

/**
 * How the engine should run a call: `Void()` sends it without waiting for a
 * result (`trigger()` resolves to `undefined` at once); `Enqueue({queue})`
 * hands it to a named queue and resolves with the receipt
 * (`{messageReceiptId}`).
 *
 * @example
 * ```ts
 * console.log(TriggerAction.Void()); // { type: "void" }
 * console.log(TriggerAction.Enqueue({ queue: "emails" })); // { type: "enqueue", queue: "emails" }
 * ```
 */
export const TriggerAction = {
  /** Fire and forget: no result, no error. */
  Void(): TriggerActionValue {
    return { type: "void" };
  },
  /** Run through the named queue; the result is the queue's receipt. */
  Enqueue(options: { queue: string }): TriggerActionValue {
    if (typeof options?.queue !== "string" || options.queue === "") {
      throw new TypeError("TriggerAction.Enqueue() needs a non-empty queue name");
    }
    return { type: "enqueue", queue: options.queue };
  },
} as const;

/** The wire value of a trigger action. */
export type TriggerAction = TriggerActionValue;

/**
 * The functions and triggers a worker registered: checked when they are
 * added, their frames kept for the engine (sent now, replayed after every
 * reconnect), and a function's handler found for an `invokefunction`.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { validateFunctionId } from "./function_id.ts";
import type { Frame } from "./invocation.ts";
import type { FunctionHandler, FunctionOptions, TriggerInput } from "./types.ts";

/** One registration: what to send now and, when it is undone, what to send then. */
export interface Registered {
  id: string;
  frame: Frame;
  unregisterFrame: Frame;
}

export class Registrations {
  #functions = new Map<string, { frame: Frame; handler: FunctionHandler }>();
  #triggers = new Map<string, Frame>();

  /** Adds function `id`; throws naming it when the id, the handler or a duplicate is refused. */
  addFunction(id: string, handler: FunctionHandler, options: FunctionOptions): Registered {
    validateFunctionId(id);
    if (typeof handler !== "function") {
      throw new TypeError(`Handler of function "${id}" is not a function`);
    }
    if (this.#functions.has(id)) throw new Error(`Function id already registered: "${id}"`);
    const defined = Object.entries(options).filter(([, v]) => v !== undefined);
    for (const [field, value] of defined) checkJson(value, `Invalid function "${id}": "${field}"`);
    const frame: Frame = { type: "registerfunction", ...Object.fromEntries(defined), id };
    this.#functions.set(id, { frame, handler });
    return { id, frame, unregisterFrame: { type: "unregisterfunction", id } };
  }

  /** Adds a trigger under a new id; throws when its type or function id is refused. */
  addTrigger(trigger: TriggerInput): Registered {
    if (typeof trigger?.type !== "string" || trigger.type === "") {
      throw new TypeError("registerTrigger() needs a non-empty trigger type");
    }
    validateFunctionId(trigger.function_id);
    // Kept for every reconnect's replay: a value JSON cannot hold is refused now, not at each send.
    const place = `Invalid trigger "${trigger.type}" for "${trigger.function_id}"`;
    checkJson(trigger.config, `${place}: "config"`);
    checkJson(trigger.metadata, `${place}: "metadata"`);
    const id = randomUUID();
    const frame: Frame = {
      type: "registertrigger",
      id,
      trigger_type: trigger.type,
      function_id: trigger.function_id,
      config: trigger.config ?? null,
      ...(trigger.metadata === undefined ? {} : { metadata: trigger.metadata }),
    };
    this.#triggers.set(id, frame);
    return {
      id,
      frame,
      unregisterFrame: { type: "unregistertrigger", id, trigger_type: trigger.type },
    };
  }

  deleteFunction(id: string): void {
    this.#functions.delete(id);
  }

  deleteTrigger(id: string): void {
    this.#triggers.delete(id);
  }

  /** The ids of the functions registered, in registration order. */
  functionIds(): string[] {
    return [...this.#functions.keys()];
  }

  /** The handler of function `id`, if this worker registered it. */
  handler(id: string): FunctionHandler | undefined {
    return this.#functions.get(id)?.handler;
  }

  /** The frames to replay on (re)connect: functions (unless `functions` is false), then triggers. */
  frames(functions = true): Frame[] {
    const fns = functions ? [...this.#functions.values()].map((f) => f.frame) : [];
    return [...fns, ...this.#triggers.values()];
  }
}

/**
 * Throws a `TypeError` naming `place` when `value` cannot be written as JSON (a BigInt, a cycle).
 * What `JSON.stringify` leaves out or writes as `null` (a function, `undefined`, `NaN`) goes as it
 * would in a call's payload.
 */
function checkJson(value: unknown, place: string): void {
  try {
    JSON.stringify(value);
  } catch (e) {
    throw new TypeError(`${place} is not JSON-serializable: ${(e as Error).message}`);
  }
}

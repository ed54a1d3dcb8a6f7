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

  /** The handler of function `id`, if this worker registered it. */
  handler(id: string): FunctionHandler | undefined {
    return this.#functions.get(id)?.handler;
  }

  /** The frames to replay on (re)connect: functions, then triggers. */
  frames(): Frame[] {
    return [...[...this.#functions.values()].map((f) => f.frame), ...this.#triggers.values()];
  }
}

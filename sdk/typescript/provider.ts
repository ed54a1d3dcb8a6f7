/**
 * The trigger types a worker provides, and its answers to the engine's
 * `registertrigger` / `unregistertrigger` for them.
 *
 * @module
 */

import type { Frame } from "./invocation.ts";
import type { TriggerConfig, TriggerTypeHandler } from "./types.ts";

interface ProvidedType {
  frame: Frame;
  handler: TriggerTypeHandler;
  /** Bindings accepted so far, so `unregisterTrigger` gets the full binding. */
  bindings: Map<string, TriggerConfig>;
}

/**
 * Trigger types provided by one worker.
 *
 * @example
 * ```ts
 * const providers = new TriggerTypeProviders();
 * providers.add({ id: "ticker", description: "ticks" }, { registerTrigger() {}, unregisterTrigger() {} });
 * const answer = await providers.register({ id: "t-1", trigger_type: "ticker", function_id: "a::b", config: {} });
 * console.log(answer); // { type: "triggerregistrationresult", id: "t-1", trigger_type: "ticker", function_id: "a::b" }
 * ```
 */
export class TriggerTypeProviders {
  #types = new Map<string, ProvidedType>();

  /** Adds a type and returns its `registertriggertype` frame. */
  add(type: { id: string; description: string }, handler: TriggerTypeHandler): Frame {
    if (typeof type?.id !== "string" || type.id === "") {
      throw new TypeError("Trigger type id must be a non-empty string");
    }
    if (this.#types.has(type.id)) throw new Error(`Trigger type already registered: "${type.id}"`);
    const frame: Frame = {
      type: "registertriggertype",
      id: type.id,
      description: type.description ?? "",
    };
    this.#types.set(type.id, { frame, handler, bindings: new Map() });
    return frame;
  }

  /** Removes a type; returns false if it was not there. */
  delete(id: string): boolean {
    return this.#types.delete(id);
  }

  /** The `registertriggertype` frames to replay on (re)connect. */
  frames(): Frame[] {
    return [...this.#types.values()].map((t) => t.frame);
  }

  /** Handles an E→W `registertrigger`; resolves with the `triggerregistrationresult` to send. */
  async register(msg: Record<string, unknown>): Promise<Frame> {
    const id = String(msg.id);
    const base: Frame = {
      type: "triggerregistrationresult",
      id,
      trigger_type: msg.trigger_type,
      function_id: msg.function_id,
    };
    const provided = this.#types.get(String(msg.trigger_type));
    if (!provided) {
      return {
        ...base,
        error: { code: "trigger_type_not_found", message: "Trigger type not found" },
      };
    }
    const binding: TriggerConfig = {
      id,
      function_id: String(msg.function_id),
      config: msg.config,
      ...(msg.metadata === undefined ? {} : { metadata: msg.metadata }),
    };
    try {
      await provided.handler.registerTrigger(binding);
      provided.bindings.set(id, binding);
      return base;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { ...base, error: { code: "trigger_registration_failed", message } };
    }
  }

  /** Handles an E→W `unregistertrigger` (no answer is sent). */
  async unregister(msg: Record<string, unknown>): Promise<void> {
    const provided = this.#types.get(String(msg.trigger_type));
    if (!provided) return;
    const id = String(msg.id);
    const binding = provided.bindings.get(id) ?? { id, function_id: "", config: undefined };
    provided.bindings.delete(id);
    try {
      await provided.handler.unregisterTrigger(binding);
    } catch (err) {
      console.error(`[engine-sdk] unregisterTrigger failed for "${id}" (${msg.trigger_type})`, err);
    }
  }
}

/**
 * The trigger types a worker provides, and its answers to the engine's
 * `registertrigger` / `unregistertrigger` for them.
 *
 * @module
 */

import { ownCode } from "./errors.ts";
import type { Frame } from "./invocation.ts";
import type { Registered } from "./registrations.ts";
import type { TriggerConfig, TriggerTypeHandler } from "./types.ts";

interface ProvidedType {
  frame: Frame;
  handler: TriggerTypeHandler;
  /** Bindings accepted so far, so `unregisterTrigger` gets the full binding. */
  bindings: Map<string, TriggerConfig>;
}

/**
 * Trigger types provided by one worker. The engine hands a provider each
 * trigger of its types (`registertrigger`) and takes it back
 * (`unregistertrigger`); the handler starts and stops whatever fires it.
 * Operations on one trigger run in order (an unregister never overtakes its
 * register); the same trigger handed over again unchanged is not registered
 * twice; and every accepted trigger is handed back to the handler when the
 * engine forgets it without saying so: the connection drops (the engine
 * hands the triggers over again after the reconnect), the type is
 * unregistered, or the worker shuts down.
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
  /** The last operation on each trigger, so the next one waits for it. */
  #chains = new Map<string, Promise<unknown>>();

  /** Adds a type; returns its `registertriggertype` frame and the frame that undoes it. */
  add(type: { id: string; description: string }, handler: TriggerTypeHandler): Registered {
    if (typeof type?.id !== "string" || type.id === "") {
      throw new TypeError("Trigger type id must be a non-empty string");
    }
    const description: unknown = type.description ?? "";
    if (typeof description !== "string") {
      throw new TypeError(
        `Invalid "description" of trigger type "${type.id}": expected a string, got ${typeof description}`,
      );
    }
    if (this.#types.has(type.id)) throw new Error(`Trigger type already registered: "${type.id}"`);
    const frame: Frame = {
      type: "registertriggertype",
      id: type.id,
      description,
    };
    this.#types.set(type.id, { frame, handler, bindings: new Map() });
    const unregisterFrame = { ...frame, type: "unregistertriggertype" };
    return { id: type.id, frame, unregisterFrame };
  }

  /** Removes a type, handing its triggers back to its handler; false if it was not there. */
  delete(id: string): boolean {
    const provided = this.#types.get(id);
    if (!provided) return false;
    this.#types.delete(id);
    void this.#releaseAll(provided, id);
    return true;
  }

  /** Hands every accepted trigger back to its handler (the engine has forgotten them). */
  async release(): Promise<void> {
    await Promise.all([...this.#types].map(([id, provided]) => this.#releaseAll(provided, id)));
  }

  /** The `registertriggertype` frames to replay on (re)connect. */
  frames(): Frame[] {
    return [...this.#types.values()].map((t) => t.frame);
  }

  /** Handles an E→W `registertrigger`; resolves with the `triggerregistrationresult` to send. */
  register(msg: Record<string, unknown>): Promise<Frame> {
    const id = String(msg.id);
    const typeId = String(msg.trigger_type);
    const base: Frame = {
      type: "triggerregistrationresult",
      id,
      trigger_type: msg.trigger_type,
      function_id: msg.function_id,
    };
    const binding: TriggerConfig = {
      id,
      function_id: String(msg.function_id),
      config: msg.config,
      ...(msg.metadata === undefined ? {} : { metadata: msg.metadata }),
    };
    return this.#inOrder(id, async () => {
      const provided = this.#types.get(typeId);
      if (!provided) {
        return {
          ...base,
          error: { code: "trigger_type_not_found", message: `Trigger type "${typeId}" not found` },
        };
      }
      const held = provided.bindings.get(id);
      if (held && sameBinding(held, binding)) return base; // handed over again: already running
      if (held) await this.#unregister(provided, typeId, held);
      try {
        await provided.handler.registerTrigger(binding);
        provided.bindings.set(id, binding);
        return base;
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        return {
          ...base,
          error: {
            code: ownCode(err, "trigger_registration_failed"),
            message:
              `Cannot register trigger "${id}" (${typeId}) for "${binding.function_id}": ${detail}`,
          },
        };
      }
    });
  }

  /** Handles an E→W `unregistertrigger` (no answer is sent); only an accepted trigger is undone. */
  unregister(msg: Record<string, unknown>): Promise<void> {
    const id = String(msg.id);
    const typeId = String(msg.trigger_type);
    return this.#inOrder(id, async () => {
      const provided = this.#types.get(typeId);
      const binding = provided?.bindings.get(id);
      if (provided && binding) await this.#unregister(provided, typeId, binding);
    });
  }

  /**
   * Undoes the type's accepted triggers, and those still being registered
   * (queued behind their register, so it is undone once it is accepted).
   */
  #releaseAll(provided: ProvidedType, typeId: string): Promise<unknown> {
    const ids = new Set([...provided.bindings.keys(), ...this.#chains.keys()]);
    return Promise.all([...ids].map((id) =>
      this.#inOrder(id, async () => {
        const binding = provided.bindings.get(id);
        if (binding) await this.#unregister(provided, typeId, binding);
      })
    ));
  }

  async #unregister(provided: ProvidedType, typeId: string, binding: TriggerConfig): Promise<void> {
    provided.bindings.delete(binding.id);
    try {
      await provided.handler.unregisterTrigger(binding);
    } catch (err) {
      console.error(`[engine-sdk] unregisterTrigger failed for "${binding.id}" (${typeId})`, err);
    }
  }

  /** Runs `op` after the operations already queued for trigger `id`. */
  #inOrder<T>(id: string, op: () => Promise<T>): Promise<T> {
    const run = (this.#chains.get(id) ?? Promise.resolve()).then(op, op);
    const settled = run.catch(() => {});
    this.#chains.set(id, settled);
    void settled.then(() => {
      if (this.#chains.get(id) === settled) this.#chains.delete(id);
    });
    return run;
  }
}

function sameBinding(a: TriggerConfig, b: TriggerConfig): boolean {
  return a.function_id === b.function_id && JSON.stringify(a.config) === JSON.stringify(b.config) &&
    JSON.stringify(a.metadata) === JSON.stringify(b.metadata);
}

/**
 * Trigger types (who provides them) and triggers (bindings of a function to
 * an event source). Pure bookkeeping: the engine decides what to tell the
 * providers from the values these methods return.
 *
 * A trigger whose type has no provider yet is `pending`; it becomes `active`
 * when a provider accepts it, and `failed` when the provider refuses it.
 *
 * A type has one provider at a time, the last to register it. Those it
 * replaced and that still provide it (replicas of a provider, say) stand by:
 * when the provider of the moment gives the type up or leaves, the latest of
 * them provides it again ({@linkcode TriggerRegistry.promote}).
 *
 * @module
 */
import type { TriggerTypeFormats } from "../api.ts";

export type { TriggerTypeFormats };

export type TriggerStatus = "pending" | "active" | "failed";

export interface TriggerRecord<O> {
  id: string;
  type: string;
  functionId: string;
  config: unknown;
  metadata?: unknown;
  owner: O;
  status: TriggerStatus;
  /** Why the provider refused it, when `failed`. */
  error?: string;
  registeredAt: number;
}

export interface TriggerTypeRecord<O> {
  id: string;
  description: string;
  owner: O;
  formats?: TriggerTypeFormats;
}

export class TriggerRegistry<O> {
  #types = new Map<string, TriggerTypeRecord<O>>();
  /** Providers a later one replaced, by type, oldest first (each owner once). */
  #standby = new Map<string, TriggerTypeRecord<O>[]>();
  #triggers = new Map<string, TriggerRecord<O>>();

  /**
   * Adds or replaces a provider (the one it replaces stands by); returns the
   * triggers of that type to hand to it.
   */
  addType(
    id: string,
    description: string,
    owner: O,
    formats: TriggerTypeFormats = {},
  ): TriggerRecord<O>[] {
    const declared = Object.values(formats).some((f) => f !== undefined);
    const previous = this.#types.get(id);
    this.#leaveStandby(id, owner);
    if (previous && previous.owner !== owner) {
      const standby = this.#standby.get(id);
      if (standby) standby.push(previous);
      else this.#standby.set(id, [previous]);
    }
    this.#types.set(id, { id, description, owner, ...(declared ? { formats } : {}) });
    return this.ofType(id);
  }

  /**
   * Removes a type if `owner` provides it (its triggers become pending) or
   * stands by for it; true only in the first case.
   */
  removeType(id: string, owner: O): boolean {
    const t = this.#types.get(id);
    if (!t || t.owner !== owner) {
      this.#leaveStandby(id, owner);
      return false;
    }
    this.#types.delete(id);
    for (const trigger of this.ofType(id)) {
      trigger.status = "pending";
      delete trigger.error; // a refusal of the old provider: the next one decides afresh
    }
    return true;
  }

  /**
   * Makes the latest provider standing by for type `id`, which has none now,
   * its provider again; returns it (undefined when none stands by).
   */
  promote(id: string): TriggerTypeRecord<O> | undefined {
    if (this.#types.has(id)) return undefined;
    const next = this.#standby.get(id)?.pop();
    if (next === undefined) return undefined;
    if (this.#standby.get(id)!.length === 0) this.#standby.delete(id);
    this.#types.set(id, next);
    return next;
  }

  /** Takes `owner` off the providers standing by for every type (it left). */
  dropStandby(owner: O): void {
    for (const id of [...this.#standby.keys()]) this.#leaveStandby(id, owner);
  }

  #leaveStandby(id: string, owner: O): void {
    const standby = this.#standby.get(id);
    if (!standby) return;
    const kept = standby.filter((t) => t.owner !== owner);
    if (kept.length === 0) this.#standby.delete(id);
    else if (kept.length < standby.length) this.#standby.set(id, kept);
  }

  type(id: string): TriggerTypeRecord<O> | undefined {
    return this.#types.get(id);
  }

  types(): TriggerTypeRecord<O>[] {
    return [...this.#types.values()];
  }

  /** Stores a trigger (replacing one with the same id) and returns it and any it replaced. */
  add(
    record: Omit<TriggerRecord<O>, "status" | "registeredAt">,
    now = Date.now(),
  ): { record: TriggerRecord<O>; replaced?: TriggerRecord<O> } {
    const replaced = this.#triggers.get(record.id);
    const stored: TriggerRecord<O> = { ...record, status: "pending", registeredAt: now };
    this.#triggers.set(record.id, stored);
    return replaced ? { record: stored, replaced } : { record: stored };
  }

  remove(id: string): TriggerRecord<O> | undefined {
    const t = this.#triggers.get(id);
    if (t) this.#triggers.delete(id);
    return t;
  }

  get(id: string): TriggerRecord<O> | undefined {
    return this.#triggers.get(id);
  }

  ofType(type: string): TriggerRecord<O>[] {
    return [...this.#triggers.values()].filter((t) => t.type === type);
  }

  ofOwner(owner: O): TriggerRecord<O>[] {
    return [...this.#triggers.values()].filter((t) => t.owner === owner);
  }

  typesOf(owner: O): TriggerTypeRecord<O>[] {
    return [...this.#types.values()].filter((t) => t.owner === owner);
  }

  all(): TriggerRecord<O>[] {
    return [...this.#triggers.values()];
  }
}

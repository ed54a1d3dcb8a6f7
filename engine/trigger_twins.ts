/**
 * Twin triggers: triggers of the same type, function, config and metadata,
 * registered by different workers under different ids, as every replica of a
 * worker registers its own (the SDKs give each trigger a random id). They stand for one trigger:
 * the engine hands one of them (the lead) to the provider and keeps the
 * others as stand-ins, so an event calls the function once whatever the
 * number of replicas, and the trigger lives on while any of them does. Pure.
 *
 * @module
 */
import type { TriggerRecord } from "./registry/triggers.ts";

/** What twins share: type, function, config and metadata (object keys in any order). */
export function twinKey(t: TriggerRecord<string>): string {
  return canonical([t.type, t.functionId, t.config ?? null, t.metadata ?? null]);
}

/** JSON text of `value` with the keys of every object sorted. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Live triggers grouped by {@link twinKey}, each group in the order its triggers came. */
export class TwinIndex {
  readonly #groups = new Map<string, TriggerRecord<string>[]>();
  readonly #keys = new WeakMap<TriggerRecord<string>, string>();

  add(t: TriggerRecord<string>): void {
    const key = twinKey(t);
    this.#keys.set(t, key);
    const group = this.#groups.get(key);
    if (group) group.push(t);
    else this.#groups.set(key, [t]);
  }

  remove(t: TriggerRecord<string>): void {
    const key = this.#keys.get(t);
    const group = key === undefined ? undefined : this.#groups.get(key);
    if (!group) return;
    const at = group.indexOf(t);
    if (at >= 0) group.splice(at, 1);
    if (group.length === 0) this.#groups.delete(key!);
  }

  /**
   * The live twins of `t` registered by other workers. A worker registering
   * the same trigger twice under two ids gets both, as it asked.
   */
  twinsOf(t: TriggerRecord<string>): TriggerRecord<string>[] {
    const key = this.#keys.get(t);
    const group = key === undefined ? undefined : this.#groups.get(key);
    return group ? group.filter((other) => other.owner !== t.owner) : [];
  }
}

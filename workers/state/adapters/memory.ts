/**
 * The in-memory state adapter: values live as JSON text in the engine process
 * and are gone when it stops. Every method runs without awaiting anything in
 * between its read and its write, so each one is atomic.
 *
 * @module
 */

import type { UpdateOp } from "../update_ops.ts";
import { compareKeys, decodeStored, encodeValue, type JsonValue } from "../values.ts";
import { DEFAULT_MAX_LIST_BYTES, listBound } from "../list_bound.ts";
import {
  type DeleteOutcome,
  planUpdate,
  type SetOutcome,
  type StateEntry,
  type StateStore,
  type StoreOptions,
  type UpdateOutcome,
} from "./store.ts";

/** A {@link StateStore} held in memory. */
export class MemoryStore implements StateStore {
  readonly adapter = "memory";
  readonly #scopes = new Map<string, Map<string, string>>();
  readonly #maxValueBytes: number;
  readonly #maxListBytes: number;
  #closed = false;

  constructor(options: StoreOptions) {
    this.#maxValueBytes = options.maxValueBytes;
    this.#maxListBytes = options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
  }

  get(scope: string, key: string): JsonValue | undefined {
    const text = this.#scope(scope)?.get(key);
    return text === undefined ? undefined : decodeStored(text);
  }

  set(scope: string, key: string, value: JsonValue): SetOutcome {
    const text = encodeValue(value, this.#maxValueBytes, { scope, key });
    const entries = this.#scope(scope, true);
    const old = entries.get(key);
    entries.set(key, text);
    return old === undefined
      ? { created: true, oldValue: null }
      : { created: false, oldValue: decodeStored(old) };
  }

  delete(scope: string, key: string): DeleteOutcome {
    const entries = this.#scope(scope);
    const old = entries?.get(key);
    if (entries === undefined || old === undefined) return { existed: false, oldValue: null };
    entries.delete(key);
    if (entries.size === 0) this.#scopes.delete(scope);
    return { existed: true, oldValue: decodeStored(old) };
  }

  update(scope: string, key: string, ops: readonly UpdateOp[]): UpdateOutcome {
    const stored = this.#scope(scope)?.get(key);
    const plan = planUpdate(stored, ops, { scope, key, maxValueBytes: this.#maxValueBytes });
    if (plan.text !== undefined) this.#scope(scope, true).set(key, plan.text);
    return plan.outcome;
  }

  list(scope: string): StateEntry[] {
    const count = listBound(scope, this.#maxListBytes);
    const entries = [...this.#scope(scope) ?? []];
    for (const [key, text] of entries) count(key, text);
    entries.sort(([a], [b]) => compareKeys(a, b));
    return entries.map(([key, text]) => ({ key, value: decodeStored(text) }));
  }

  listGroups(): string[] {
    this.#check();
    return [...this.#scopes.keys()].sort(compareKeys);
  }

  close(): void {
    this.#closed = true;
    this.#scopes.clear();
  }

  #scope(scope: string): Map<string, string> | undefined;
  #scope(scope: string, create: true): Map<string, string>;
  #scope(scope: string, create = false): Map<string, string> | undefined {
    this.#check();
    let entries = this.#scopes.get(scope);
    if (entries === undefined && create) {
      entries = new Map();
      this.#scopes.set(scope, entries);
    }
    return entries;
  }

  #check(): void {
    if (this.#closed) throw new Error("The memory state store is closed");
  }
}

/**
 * The contract every state adapter (SQLite, memory, Redis) implements, and the
 * update step they share. Adapters store each value as its compact JSON text,
 * so a read never hands out an object a caller could change in place.
 *
 * @module
 */

import { applyUpdateOps, type UpdateOp, type UpdateOpError } from "../update_ops.ts";
import { decodeStored, encodeValue, type JsonValue } from "../values.ts";

/** A result adapters may hand back at once (SQLite, memory) or later (Redis). */
export type Awaitable<T> = T | Promise<T>;

/** One stored entry, as `list` returns it. */
export interface StateEntry {
  key: string;
  value: JsonValue;
}

/** What a `set` replaced. */
export interface SetOutcome {
  /** True when the key held no value before. */
  created: boolean;
  /** The previous value; `null` when created. */
  oldValue: JsonValue;
}

/** What a `delete` removed. */
export interface DeleteOutcome {
  /** True when the key held a value (and now does not). */
  existed: boolean;
  /** The removed value; `null` when none existed. */
  oldValue: JsonValue;
}

/** What an `update` did. */
export interface UpdateOutcome {
  /** True when the new value was written; false when no op applied. */
  written: boolean;
  /** True when the key held no value before. */
  created: boolean;
  /** The value before; `null` when the key was missing. */
  oldValue: JsonValue;
  /** The value after; the old value when nothing was written (`null` when missing). */
  newValue: JsonValue;
  /** The ops that could not apply. */
  errors: UpdateOpError[];
}

/** Options every adapter takes. */
export interface StoreOptions {
  /** Largest value `set` or `update` may store, in UTF-8 bytes of compact JSON. */
  maxValueBytes: number;
  /**
   * Largest `list` answer, in UTF-8 bytes of keys and stored values; a list
   * over it fails with `LIST_TOO_LARGE` once that much is read. Default 32
   * MiB (`list_bound.ts`).
   */
  maxListBytes?: number;
}

/**
 * A scoped key-value store of JSON values. Methods may answer synchronously
 * (and throw synchronously): always `await` them. Every method is atomic on its own:
 * an `update` reads, applies its ops and writes as one step, even with other
 * processes writing to the same back end. Values too large fail with a
 * `CallError` `VALUE_TOO_LARGE` and change nothing.
 */
export interface StateStore {
  /** The adapter's name: `sqlite`, `memory` or `redis`. */
  readonly adapter: string;
  /** The stored value, or `undefined` when the key holds none. */
  get(scope: string, key: string): Awaitable<JsonValue | undefined>;
  set(scope: string, key: string, value: JsonValue): Awaitable<SetOutcome>;
  delete(scope: string, key: string): Awaitable<DeleteOutcome>;
  update(scope: string, key: string, ops: readonly UpdateOp[]): Awaitable<UpdateOutcome>;
  /** The scope's entries, sorted by key (`compareKeys`). */
  list(scope: string): Awaitable<StateEntry[]>;
  /** The scopes holding at least one entry, sorted. */
  listGroups(): Awaitable<string[]>;
  /** Releases the back end; later calls fail. */
  close(): Awaitable<void>;
}

/** An update computed from the stored text, ready to write. */
export interface PlannedUpdate {
  outcome: UpdateOutcome;
  /** The text to store; `undefined` when no op applied (write nothing). */
  text: string | undefined;
}

/**
 * Runs `ops` on the stored text (`undefined` when missing) and encodes the
 * result, refusing one over `maxValueBytes`. Pure: adapters call it inside
 * whatever makes their read-modify-write atomic.
 */
export function planUpdate(
  stored: string | undefined,
  ops: readonly UpdateOp[],
  where: { scope: string; key: string; maxValueBytes: number },
): PlannedUpdate {
  const oldValue: JsonValue = stored === undefined ? null : decodeStored(stored);
  // The ops change their input in place: give them a copy of their own.
  const working = stored === undefined ? undefined : decodeStored(stored);
  const result = applyUpdateOps(working, ops);
  const created = stored === undefined;
  if (result.applied === 0) {
    return {
      outcome: { written: false, created, oldValue, newValue: oldValue, errors: result.errors },
      text: undefined,
    };
  }
  const text = encodeValue(result.value, where.maxValueBytes, where);
  return {
    outcome: { written: true, created, oldValue, newValue: result.value, errors: result.errors },
    text,
  };
}

/**
 * What changed between two `workers` lists, for live reload: entries are
 * matched by name and compared structurally (`name`, `path`, `config`), so
 * reordering the list or the keys of a config block changes nothing.
 *
 * @module
 */

import type { WorkerEntry } from "./schema.ts";

/** One entry present in both lists with different settings. */
export interface ChangedWorker {
  previous: WorkerEntry;
  next: WorkerEntry;
}

export interface WorkersDiff {
  /** In `next` only: start them. */
  added: WorkerEntry[];
  /** In `previous` only: stop them. */
  removed: WorkerEntry[];
  /** In both, different: restart them with the new settings. */
  changed: ChangedWorker[];
  /** In both, equal: leave them running. */
  unchanged: WorkerEntry[];
}

/**
 * Compares two worker lists by name. Each bucket keeps the order of the list
 * its entries come from (`removed` that of `previous`, the others that of `next`).
 *
 * @example
 * ```ts
 * import { diffWorkers } from "./diff.ts";
 * const diff = diffWorkers([{ name: "a", path: "./a" }], [{ name: "a", path: "./b" }]);
 * console.log(diff.changed.length); // 1
 * ```
 */
export function diffWorkers(previous: WorkerEntry[], next: WorkerEntry[]): WorkersDiff {
  const before = new Map(previous.map((entry) => [entry.name, entry]));
  const names = new Set(next.map((entry) => entry.name));
  const diff: WorkersDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const entry of next) {
    const old = before.get(entry.name);
    if (old === undefined) diff.added.push(entry);
    else if (equal(old, entry)) diff.unchanged.push(entry);
    else diff.changed.push({ previous: old, next: entry });
  }
  diff.removed = previous.filter((entry) => !names.has(entry.name));
  return diff;
}

/** Structural equality of JSON-like values; a key set to `undefined` counts as absent. */
export function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => equal(item, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const key of keys) if (!equal(x[key], y[key])) return false;
  return true;
}

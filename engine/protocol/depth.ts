/**
 * How deeply a parsed JSON value nests. V8's `JSON.parse` is not recursive,
 * but what later walks a value (`JSON.stringify`, a recursive check) is, and
 * overflows the stack on a value nested thousands of levels deep: frames and
 * HTTP bodies are checked on their parsed value, a walk of its nodes, far
 * cheaper than a scan of every character of the text.
 *
 * @module
 */

/**
 * Whether `value` nests objects and arrays more than `limit` levels deep.
 *
 * @example
 * ```ts
 * import { deeperThan } from "./depth.ts";
 * console.log(deeperThan([[1]], 1), deeperThan([[1]], 2)); // true false
 * ```
 */
export function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (deeperThan(v, limit - 1)) return true;
  } else {
    for (const k in value) {
      if (deeperThan((value as Record<string, unknown>)[k], limit - 1)) return true;
    }
  }
  return false;
}

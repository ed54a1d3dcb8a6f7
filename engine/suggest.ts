/**
 * "Did you mean …?" for the names a user types: commands, options, function
 * ids, config and manifest fields. A typo is a small edit away from the name
 * meant; anything further is not guessed at.
 *
 * @module
 */

/** The number of single-character edits (insert, delete, replace, swap two) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  }
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to `typed` when it is near enough to be a typo
 * (ignoring case, at most a third of its length away, and at most 3 edits),
 * else `undefined`.
 *
 * @example
 * ```ts
 * import { closest } from "./suggest.ts";
 * closest("--jsn", ["--json", "--config"]); // "--json"
 * closest("frobnicate", ["trigger", "worker"]); // undefined
 * ```
 */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    if (name === typed) continue;
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `: did you mean "<name>"?` when `typed` looks like a typo of a candidate, else "". */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const name = closest(typed, candidates);
  return name === undefined ? "" : `: did you mean "${name}"?`;
}

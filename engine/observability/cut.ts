/**
 * Text cut to a length, saying how much was cut: what the log and trace
 * stores hold of a long message, stack trace or string, so that a count of
 * entries also bounds their memory.
 *
 * @module
 */

/**
 * Longest message or stack trace an entry keeps, in UTF-16 code units: more
 * than a captured output line (16,384, cut with its own note), which is
 * never cut twice.
 */
export const MAX_MESSAGE = 32_768;

/** Longest string an entry keeps inside its data or attributes. */
export const MAX_STRING = 8_192;

/**
 * `text`, or its first `max` code units and a note of how many more were cut.
 *
 * @example
 * ```ts
 * import { cutText } from "./cut.ts";
 * cutText("abcdef", 4); // "abcd … [2 more characters cut]"
 * ```
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)} … [${cutNote(text.length - max)}]`;
}

/** `"1,983,616 more characters cut"`. */
export function cutNote(characters: number): string {
  return `${characters.toLocaleString("en-US")} more characters cut`;
}

/**
 * `entry` with those of its `fields` that are strings longer than
 * {@linkcode MAX_STRING} cut (a name, an id); `entry` itself when none is.
 */
export function cutFields<T extends object>(entry: T, fields: readonly (keyof T)[]): T {
  let copy: T | undefined;
  for (const field of fields) {
    const value = entry[field];
    if (typeof value === "string" && value.length > MAX_STRING) {
      (copy ??= { ...entry })[field] = cutText(value, MAX_STRING) as T[keyof T];
    }
  }
  return copy ?? entry;
}

/**
 * The text of one top-level member of a frame, so a payload can travel on as
 * the JSON text it arrived in instead of being serialized again: for large
 * payloads that second `JSON.stringify` was the largest cost of relaying a
 * call (every engine hop serialized `data` and `result` anew).
 *
 * Only for text `JSON.parse` has already accepted as an object. The scan is
 * structural: strings are skipped with `indexOf` (escapes counted), the rest
 * with sticky regular expressions, so its cost grows with the number of
 * tokens outside strings, not with the length of the strings. A frame whose
 * top level names a key twice gets `undefined` (its parsed value, the last
 * one, is serialized instead), so the text passed on is always the value
 * the engine validated.
 *
 * @module
 */

const WHITESPACE = /[ \t\n\r]*/y;
/** Everything up to the next character that opens or closes a string or a container. */
const PLAIN = /[^"{}[\]]*/y;
/** A number, `true`, `false` or `null`. */
const SCALAR = /[^,}\]\s]*/y;

/**
 * The JSON text of the value of `key` in the object `text`, or `undefined`
 * when the object has no such member or repeats a key at its top level.
 *
 * @example
 * ```ts
 * import { memberText } from "./member_text.ts";
 * memberText('{"type":"x","data":{"a": [1, "}"]}}', "data"); // '{"a": [1, "}"]}'
 * ```
 */
export function memberText(text: string, key: string): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== 123 /* { */) return undefined;
  const seen: string[] = [];
  let start = -1;
  let end = -1;
  i = skipWhitespace(text, i + 1);
  while (text.charCodeAt(i) === 34 /* " */) {
    const nameEnd = stringEnd(text, i);
    if (nameEnd < 0) return undefined;
    let name = text.slice(i + 1, nameEnd - 1);
    if (name.includes("\\")) name = JSON.parse(text.slice(i, nameEnd)) as string;
    if (seen.includes(name)) return undefined;
    seen.push(name);
    i = skipWhitespace(text, nameEnd);
    if (text.charCodeAt(i) !== 58 /* : */) return undefined;
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (valueEnd < 0) return undefined;
    if (name === key) {
      start = valueStart;
      end = valueEnd;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) === 44 /* , */) i = skipWhitespace(text, i + 1);
  }
  if (text.charCodeAt(i) !== 125 /* } */ || start < 0) return undefined;
  return text.slice(start, end);
}

function skipWhitespace(text: string, i: number): number {
  if (text.charCodeAt(i) > 32) return i; // the usual case: no whitespace at all
  WHITESPACE.lastIndex = i;
  WHITESPACE.test(text);
  return WHITESPACE.lastIndex;
}

/** The index after the string that opens at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let k = quote - 1;
    while (text.charCodeAt(k) === 92 /* \ */) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The index after the value that starts at `i`, or -1. */
function valueEndAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return stringEnd(text, i);
  if (c !== 123 && c !== 91 /* [ */) {
    SCALAR.lastIndex = i;
    SCALAR.test(text);
    return SCALAR.lastIndex > i ? SCALAR.lastIndex : -1;
  }
  let depth = 0;
  let j = i;
  for (;;) {
    PLAIN.lastIndex = j;
    PLAIN.test(text);
    j = PLAIN.lastIndex;
    const d = text.charCodeAt(j);
    if (d === 34) {
      j = stringEnd(text, j);
      if (j < 0) return -1;
      continue;
    }
    if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93 /* ] */) {
      if (--depth === 0) return j + 1;
    } else return -1; // end of text
    j++;
  }
}

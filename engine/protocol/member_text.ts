/**
 * The text of one top-level member of a frame, so a payload can travel on as
 * the JSON text it arrived in instead of being serialized again: for large
 * payloads that second `JSON.stringify` was the largest cost of relaying a
 * call (every engine hop serialized `data` and `result` anew).
 *
 * Only for text `JSON.parse` has already accepted as an object. The scan is
 * structural: strings are skipped with `indexOf` (escapes counted), the rest
 * with sticky regular expressions, so its cost grows with the number of
 * tokens outside strings, not with the length of the strings. A key named
 * twice gives the text of its last member, the one `JSON.parse` keeps, and a
 * name written with escapes (`"d\\u0061ta"`) counts as what it decodes to, so
 * the text passed on is always the value the engine validated.
 *
 * @module
 */

const WHITESPACE = /[ \t\n\r]*/y;
/** Everything up to the next character that opens or closes a string or a container. */
const PLAIN = /[^"{}[\]]*/y;
/** A number, `true`, `false` or `null`. */
const SCALAR = /[^,}\]\s]*/y;

/**
 * The JSON text of the value `JSON.parse(text)[key]`, or `undefined` when
 * the object `text` has no such member.
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
  let start = -1;
  let end = -1;
  i = skipWhitespace(text, i + 1);
  while (text.charCodeAt(i) === 34 /* " */) {
    const nameEnd = stringEnd(text, i);
    if (nameEnd < 0) return undefined;
    // A name with escapes is longer than what it decodes to: only such a one is decoded.
    const rawLength = nameEnd - i - 2;
    const named = rawLength === key.length
      ? text.startsWith(key, i + 1)
      : rawLength > key.length && hasEscape(text, i, nameEnd) &&
        JSON.parse(text.slice(i, nameEnd)) === key;
    i = skipWhitespace(text, nameEnd);
    if (text.charCodeAt(i) !== 58 /* : */) return undefined;
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (valueEnd < 0) return undefined;
    if (named) {
      // The last member of that name wins, as in JSON.parse.
      start = valueStart;
      end = valueEnd;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) === 44 /* , */) i = skipWhitespace(text, i + 1);
  }
  if (text.charCodeAt(i) !== 125 /* } */ || start < 0) return undefined;
  return text.slice(start, end);
}

function hasEscape(text: string, from: number, to: number): boolean {
  const backslash = text.indexOf("\\", from);
  return backslash >= 0 && backslash < to;
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
    let d = text.charCodeAt(j);
    if (d !== 34 && d !== 123 && d !== 125 && d !== 91 && d !== 93) {
      // A run of plain characters (numbers, punctuation): skipped natively.
      PLAIN.lastIndex = j;
      PLAIN.test(text);
      j = PLAIN.lastIndex;
      d = text.charCodeAt(j);
    }
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

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
  const span = [-1, -1];
  if (!scanMembers(text, [key], span, false)) return undefined;
  return span[0]! < 0 ? undefined : text.slice(span[0], span[1]);
}

/**
 * The texts of the first members named `keys` (by key, those found), reading
 * no further than the last of them: for an envelope read from a frame too
 * large to parse, whose members usually come before its payload. `undefined`
 * when `text` is not an object as far as it was read.
 */
export function firstMemberTexts(
  text: string,
  keys: readonly string[],
): Record<string, string> | undefined {
  const spans = keys.flatMap(() => [-1, -1]);
  if (!scanMembers(text, keys, spans, true)) return undefined;
  const found: Record<string, string> = {};
  keys.forEach((key, k) => {
    if (spans[2 * k]! >= 0) found[key] = text.slice(spans[2 * k], spans[2 * k + 1]);
  });
  return found;
}

/**
 * Walks the members of the object `text`, writing the value span of key `k`
 * to `spans[2k]`, `spans[2k + 1]`: the last member of that name, or with
 * `first` the first, stopping once every key has one. False when `text` is
 * not an object (as far as it was read).
 */
function scanMembers(
  text: string,
  keys: readonly string[],
  spans: number[],
  first: boolean,
): boolean {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== 123 /* { */) return false;
  let missing = keys.length;
  i = skipWhitespace(text, i + 1);
  while (text.charCodeAt(i) === 34 /* " */) {
    const nameEnd = stringEnd(text, i);
    if (nameEnd < 0) return false;
    const k = keyIndex(text, i, nameEnd, keys);
    i = skipWhitespace(text, nameEnd);
    if (text.charCodeAt(i) !== 58 /* : */) return false;
    const valueStart = skipWhitespace(text, i + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (valueEnd < 0) return false;
    if (k >= 0 && !(first && spans[2 * k]! >= 0)) {
      // Without `first`, the last member of that name wins, as in JSON.parse.
      if (spans[2 * k]! < 0) missing--;
      spans[2 * k] = valueStart;
      spans[2 * k + 1] = valueEnd;
      if (first && missing === 0) return true;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) === 44 /* , */) i = skipWhitespace(text, i + 1);
  }
  return text.charCodeAt(i) === 125 /* } */;
}

/** Which of `keys` the name between `start` and `end` (quotes included) is, or -1. */
function keyIndex(text: string, start: number, end: number, keys: readonly string[]): number {
  // A name with escapes is longer than what it decodes to: only such a one is decoded.
  const rawLength = end - start - 2;
  let decoded: string | undefined;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    if (rawLength === key.length) {
      if (text.startsWith(key, start + 1)) return k;
    } else if (rawLength > key.length && hasEscape(text, start, end)) {
      decoded ??= JSON.parse(text.slice(start, end)) as string;
      if (decoded === key) return k;
    }
  }
  return -1;
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

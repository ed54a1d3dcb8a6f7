/**
 * JSON with its whole numbers kept exact. `JSON.parse` turns every number
 * into a double, so an integer beyond 2^53 (a 64-bit id, a counter in
 * nanoseconds) comes out rounded: 9007199254740993 reads as …992. Where the
 * engine or a built-in worker must hold such a value and write it out again,
 * it parses with {@linkcode parseExact}: integers a double cannot hold become
 * `JSON.rawJSON` values, which `JSON.stringify` writes back digit for digit.
 * Other numbers (fractions, exponents) stay doubles, as in the reference.
 *
 * @module
 */
import { memberText } from "./member_text.ts";

/** An integer kept as its JSON text (a frozen object `JSON.stringify` writes as that text). */
export interface RawInteger {
  readonly rawJSON: string;
}

/** `JSON.rawJSON` and `JSON.isRawJSON` (ES2025), not in TypeScript's library yet. */
const RawJson = JSON as JSON & {
  rawJSON(text: string): RawInteger;
  isRawJSON(value: unknown): value is RawInteger;
};

/** A run of digits long enough to be beyond 2^53 (9007199254740992 has 16). */
const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;

/**
 * `JSON.parse(text)`, except that integers beyond what a double holds
 * exactly are {@linkcode RawInteger}s. A text without 16 digits in a row
 * (nearly all) is parsed as plainly as `JSON.parse` does. Throws as
 * `JSON.parse` does.
 *
 * @example
 * ```ts
 * import { parseExact } from "./exact_json.ts";
 * const value = parseExact('{"id": 12345678901234567890, "n": 1.5}');
 * console.log(JSON.stringify(value)); // {"id":12345678901234567890,"n":1.5}
 * ```
 */
export function parseExact(text: string): unknown {
  return LONG_DIGITS.test(text) ? JSON.parse(text, keepIntegers) : JSON.parse(text);
}

/**
 * `parsed`, the value `JSON.parse(text)` made, or `text` parsed again with its
 * integers beyond 2^53 kept (see {@linkcode parseExact}) when it may hold one:
 * for a value parsed already, one scan of its text and no second parse in the
 * usual case.
 *
 * @example
 * ```ts
 * import { exactlyParsed } from "./exact_json.ts";
 * const text = '{"id": 12345678901234567890}';
 * console.log(JSON.stringify(exactlyParsed(text, JSON.parse(text)))); // {"id":12345678901234567890}
 * ```
 */
export function exactlyParsed(text: string, parsed: unknown): unknown {
  return LONG_DIGITS.test(text) ? JSON.parse(text, keepIntegers) : parsed;
}

/**
 * `parsed`, the value `JSON.parse(text)[key]` holds, or that member's text
 * parsed again with its integers beyond 2^53 kept (see
 * {@linkcode parseExact}) when it may hold one: for a payload inside a
 * frame parsed already (`text`, a whole frame), one scan of the frame's text
 * and no second parse in the usual case. `text` must be JSON that
 * `JSON.parse` accepted as an object.
 *
 * @example
 * ```ts
 * import { exactlyParsedMember } from "./exact_json.ts";
 * const frame = '{"type":"invocationresult","result":{"id":12345678901234567890}}';
 * const result = exactlyParsedMember(frame, "result", JSON.parse(frame).result);
 * console.log(JSON.stringify(result)); // {"id":12345678901234567890}
 * ```
 */
export function exactlyParsedMember(text: string, key: string, parsed: unknown): unknown {
  if (!LONG_DIGITS.test(text)) return parsed;
  const member = memberText(text, key);
  return member === undefined ? parsed : exactlyParsed(member, parsed);
}

function keepIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined &&
    INTEGER.test(context.source)
  ) {
    return RawJson.rawJSON(context.source);
  }
  return value;
}

/** Whether `value` is an integer kept as its text by {@linkcode parseExact} or {@linkcode exactInteger}. */
export function isRawInteger(value: unknown): value is RawInteger {
  return RawJson.isRawJSON(value);
}

/** `n` as a number when a double holds it exactly, else as a {@linkcode RawInteger}. */
export function exactInteger(n: bigint): number | RawInteger {
  const asNumber = Number(n);
  return Number.isSafeInteger(asNumber) ? asNumber : RawJson.rawJSON(n.toString());
}

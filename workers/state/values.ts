/**
 * JSON values as the state worker stores them: the JSON check for values that
 * arrive from in-process callers, the size-checked encoding every adapter
 * writes, and the one key order every adapter lists in.
 *
 * @module
 */

import { CallError } from "../../engine/api.ts";
import { overBytes } from "../_shared/utf8.ts";
import { isRawInteger, parseExact } from "../../engine/protocol/exact_json.ts";

const numberFormat = new Intl.NumberFormat("en-US");

/** A JSON value: what `state::*` stores, returns and puts in events. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object (not an array, not null). */
export type JsonObject = { [key: string]: JsonValue };

/** Whether `value` is a JSON object (a non-null, non-array object). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !isRawInteger(value);
}

/** The JSON type name of a value, as op errors and messages name it. */
export function jsonTypeName(value: JsonValue | undefined): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (isRawInteger(value)) return "a number";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Why `value` is not a JSON value, naming the place (`value.items[2]`), or
 * `undefined` when it is one. Payloads from the wire are always JSON; this
 * guards values handed over by in-process callers (functions, `undefined`,
 * `NaN`, `BigInt`, class instances, cycles).
 */
export function jsonProblem(value: unknown, place: string): string | undefined {
  return check(value, place, [], new Set());
}

/**
 * `path` holds the array indexes and keys from the root down to `value`; the
 * text of the place is only built for a problem, not for every node.
 */
function check(
  value: unknown,
  root: string,
  path: (string | number)[],
  parents: Set<object>,
): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value)
        ? undefined
        : `"${placeOf(root, path)}" is not JSON: ${value} is not a finite number`;
    case "object": {
      if (value === null) return undefined;
      if (parents.has(value)) return `"${placeOf(root, path)}" is not JSON: it contains itself`;
      const isArray = Array.isArray(value);
      const proto = Object.getPrototypeOf(value);
      if (!isArray && proto !== Object.prototype && proto !== null) {
        return `"${placeOf(root, path)}" is not JSON: it is an instance of ${
          proto?.constructor?.name ?? "a class"
        }`;
      }
      parents.add(value);
      let problem: string | undefined;
      if (isArray) {
        for (let i = 0; i < value.length && problem === undefined; i++) {
          path.push(i);
          problem = check(value[i], root, path, parents);
          path.pop();
        }
      } else {
        for (const k in value) {
          if (!Object.hasOwn(value, k)) continue;
          path.push(k);
          problem = check((value as Record<string, unknown>)[k], root, path, parents);
          path.pop();
          if (problem !== undefined) break;
        }
      }
      parents.delete(value);
      return problem;
    }
    default:
      return `"${placeOf(root, path)}" is not JSON: it is ${
        value === undefined ? "undefined" : `a ${typeof value}`
      }`;
  }
}

/** The text of a place: `value.items[2].name`. */
function placeOf(root: string, path: readonly (string | number)[]): string {
  return root + path.map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("");
}

/** The longest part of a name {@link quoteName} shows. */
const SHOWN_NAME_LENGTH = 80;

/**
 * A scope or key as messages show it: in double quotes with quotes, line
 * breaks and other control characters escaped (JSON's rules), so any name
 * reads unambiguously on one line; a name over 80 characters shows its
 * start and its length: `"kkk…" (1,000 characters)`.
 */
export function quoteName(name: string): string {
  if (name.length <= SHOWN_NAME_LENGTH) return JSON.stringify(name);
  const start = JSON.stringify(name.slice(0, SHOWN_NAME_LENGTH));
  return `${start.slice(0, -1)}…" (${numberFormat.format(name.length)} characters)`;
}

/** Where a value is stored, for messages. */
export interface ValueLocation {
  scope: string;
  key: string;
}

/**
 * The compact JSON text of `value`, refused with `VALUE_TOO_LARGE` when its
 * UTF-8 size is over `maxBytes`.
 */
export function encodeValue(value: JsonValue, maxBytes: number, where: ValueLocation): string {
  const text = JSON.stringify(value);
  const size = overBytes(text, maxBytes);
  if (size !== undefined) throw valueTooLarge(size, maxBytes, where);
  return text;
}

function valueTooLarge(size: number, limit: number, where: ValueLocation): CallError {
  return new CallError({
    code: "VALUE_TOO_LARGE",
    message: `Value for scope ${quoteName(where.scope)} key ${quoteName(where.key)} is ${
      numberFormat.format(size)
    } bytes: the limit is ${numberFormat.format(limit)} bytes (max_value_bytes)`,
  });
}

/**
 * The value of a stored text. Every adapter reads through here: a text that is
 * not JSON (put into the database by another program) reads as a string of
 * that text, so one such entry neither hides the others of its scope nor
 * blocks its own overwrite.
 */
export function decodeStored(text: string): JsonValue {
  try {
    // Integers beyond 2^53 read back as they were stored, not rounded.
    return parseExact(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The order `list`, `list_keys` and `list_groups` return: by UTF-16 code units. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

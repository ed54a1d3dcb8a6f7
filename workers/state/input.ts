/**
 * Reading the payloads of `state::*` calls: every problem becomes a
 * `CallError` `INVALID_ARGUMENT` that names the function and the field, thrown
 * before anything is read or written.
 *
 * @module
 */

import { invalidInput } from "../_shared/call_errors.ts";
import { isJsonObject, jsonProblem, type JsonValue } from "./values.ts";

/** The payload as an object, or an error saying which fields the function takes. */
function readObject(fn: string, payload: unknown, fields: string): Record<string, unknown> {
  if (!isJsonObject(payload)) {
    const got = payload === undefined || payload === null
      ? "none"
      : Array.isArray(payload)
      ? "an array"
      : `a ${typeof payload}`;
    throw invalidInput(fn, `the payload must be an object ${fields}, got ${got}`);
  }
  return payload;
}

/** A required non-empty string field (`scope`, `key`). */
function readName(fn: string, input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== "string" || value === "") {
    const got = value === undefined
      ? "it is missing"
      : value === ""
      ? "it is empty"
      : `got ${describe(value)}`;
    throw invalidInput(fn, `"${field}" must be a non-empty string: ${got}`);
  }
  // SQLite and Redis store text as UTF-8, where every lone surrogate becomes U+FFFD: two
  // different names would land on one entry, and a write to one would replace the other.
  if (!value.isWellFormed()) {
    const at = loneSurrogateAt(value);
    const unit = value.charCodeAt(at).toString(16);
    throw invalidInput(
      fn,
      `"${field}" must be well-formed Unicode: it holds a lone surrogate \\u${unit} at index ${at}`,
    );
  }
  // SQLite stores it, but hands names back cut at the NUL: lists would show another name (and
  // two scopes "a\0b" and "a\0c" as "a" twice).
  const nul = value.indexOf("\u0000");
  if (nul !== -1) {
    throw invalidInput(
      fn,
      `"${field}" must not contain the NUL character: it holds one at index ${nul}`,
    );
  }
  return value;
}

/** `{scope, key}` of the payload. */
export function readTarget(
  fn: string,
  payload: unknown,
): { scope: string; key: string; input: Record<string, unknown> } {
  const input = readObject(fn, payload, `with "scope" and "key"`);
  return { scope: readName(fn, input, "scope"), key: readName(fn, input, "key"), input };
}

/** `{scope}` of the payload (`state::list`, `state::list_keys`). */
export function readScope(fn: string, payload: unknown): string {
  return readName(fn, readObject(fn, payload, `with "scope"`), "scope");
}

/** The `value` of `state::set` (or its reference alias `data`), checked to be JSON. */
export function readValue(fn: string, input: Record<string, unknown>): JsonValue {
  const field = input.value === undefined && input.data !== undefined ? "data" : "value";
  const value = input[field];
  if (value === undefined) throw invalidInput(fn, `"value" is required (send null to store null)`);
  const problem = jsonProblem(value, field);
  if (problem !== undefined) throw invalidInput(fn, problem);
  return value as JsonValue;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** The UTF-16 index of the first surrogate in `text` that is not half of a pair. */
function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return i;
  }
  return -1;
}

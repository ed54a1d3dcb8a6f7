/**
 * The `state::update` operation language, pure: `parseOps` checks the shape of
 * the ops a caller sent, `applyUpdateOps` runs them on a value. Every adapter
 * uses this one module, so the semantics are the same on SQLite, memory and
 * Redis.
 *
 * An op that is well-formed but cannot apply (incrementing a string, a path
 * segment `__proto__`, …) is skipped and reported in `errors`; the other ops
 * still apply, as in the reference.
 *
 * @module
 */

import { exactInteger, isRawInteger } from "../../engine/protocol/exact_json.ts";
import { overBytes } from "../_shared/utf8.ts";
import {
  isJsonObject,
  type JsonObject,
  jsonProblem,
  jsonTypeName,
  type JsonValue,
} from "./values.ts";

/** Most path segments an op may name. */
export const MAX_PATH_DEPTH = 32;
/** Longest path segment, in UTF-8 bytes. */
export const MAX_SEGMENT_BYTES = 256;
/** Deepest nesting of a merge value. */
export const MAX_MERGE_DEPTH = 16;
/** Most top-level keys of a merge value. */
export const MAX_MERGE_KEYS = 1024;
/** Keys that would reach `Object.prototype` through careless JS consumers. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/** The op types, in the order the docs list them. */
export const OP_TYPES = ["set", "merge", "increment", "decrement", "append", "remove"] as const;
export type OpType = typeof OP_TYPES[number];

/** One op after `parseOps`; `path` is normalized to its literal segments ([] = the root). */
export type UpdateOp =
  | { type: "set"; path: string[]; value: JsonValue }
  | { type: "merge"; path: string[]; value: JsonValue }
  | { type: "increment" | "decrement"; path: string[]; by: number }
  | { type: "append"; path: string[]; value: JsonValue }
  | { type: "remove"; path: string[] };

/** An op that could not apply, listed in the `errors` of `state::update`. */
export interface UpdateOpError {
  op_index: number;
  code: string;
  message: string;
}

export type ParseOpsResult =
  | { ok: true; ops: UpdateOp[] }
  | { ok: false; code: "INVALID_ARGUMENT" | "INVALID_OP"; problem: string };

/**
 * Checks the shape of `ops` (an array of `{type, …}`). Field-path ops (`set`,
 * `increment`, `decrement`, `remove`) take a string `path`, `""` meaning the
 * root; `merge` and `append` take an optional string or array of strings.
 */
export function parseOps(raw: unknown): ParseOpsResult {
  if (!Array.isArray(raw)) return invalid(`"ops" must be an array of operations`);
  const ops: UpdateOp[] = [];
  for (let i = 0; i < raw.length; i++) {
    const at = `ops[${i}]`;
    const op: unknown = raw[i];
    if (!isJsonObject(op)) return invalid(`"${at}" must be an object with a "type"`);
    const type = op.type;
    if (!(OP_TYPES as readonly unknown[]).includes(type)) {
      return {
        ok: false,
        code: "INVALID_OP",
        problem: `"${at}.type" is ${JSON.stringify(type) ?? "missing"}: the known ops are ${
          OP_TYPES.map((t) => `"${t}"`).join(", ")
        }`,
      };
    }
    const parsed = parseOp(type as OpType, op, at);
    if (typeof parsed === "string") return invalid(parsed);
    ops.push(parsed);
  }
  return { ok: true, ops };
}

function invalid(problem: string): ParseOpsResult {
  return { ok: false, code: "INVALID_ARGUMENT", problem };
}

function parseOp(type: OpType, op: JsonObject, at: string): UpdateOp | string {
  const has = (field: string) => Object.hasOwn(op, field) && op[field] !== undefined;
  const valueProblem = has("value") ? jsonProblem(op.value, `${at}.value`) : undefined;
  if (valueProblem !== undefined) return valueProblem;
  switch (type) {
    case "set":
    case "remove":
    case "increment":
    case "decrement": {
      if (typeof op.path !== "string") {
        return `"${at}.path" must be a string ("" for the whole value)`;
      }
      const path = op.path === "" ? [] : [op.path];
      if (type === "set") return { type, path, value: has("value") ? op.value as JsonValue : null };
      if (type === "remove") return { type, path };
      if (typeof op.by !== "number" || !Number.isFinite(op.by)) {
        return `"${at}.by" must be a finite number`;
      }
      return { type, path, by: op.by };
    }
    case "merge":
    case "append": {
      let path: string[];
      if (!has("path") || op.path === "") path = [];
      else if (typeof op.path === "string") path = [op.path];
      else if (Array.isArray(op.path) && op.path.every((s) => typeof s === "string")) {
        path = op.path as string[];
      } else return `"${at}.path" must be a string or an array of strings`;
      if (!has("value")) return `"${at}.value" is required`;
      return { type, path, value: op.value as JsonValue };
    }
  }
}

/** What `applyUpdateOps` produced. */
export interface ApplyResult {
  /** The value after the ops (the old value, or `{}` for a missing key, when none applied). */
  value: JsonValue;
  /** How many ops applied; 0 means nothing should be written. */
  applied: number;
  errors: UpdateOpError[];
}

/**
 * Applies `ops` in order to `current` (`undefined` when the key is missing,
 * which starts from `{}`). `current` is modified in place and may share
 * structure with the ops' values: hand over a copy you own.
 */
export function applyUpdateOps(
  current: JsonValue | undefined,
  ops: readonly UpdateOp[],
): ApplyResult {
  const state = new Working(current);
  const errors: UpdateOpError[] = [];
  let applied = 0;
  ops.forEach((op, index) => {
    const problem = pathProblem(op) ?? state.apply(op);
    if (problem === undefined) {
      applied++;
      state.missing = false;
    } else errors.push({ op_index: index, code: problem.code, message: problem.message });
  });
  return { value: state.value, applied, errors };
}

interface Problem {
  code: string;
  message: string;
}

function pathProblem(op: UpdateOp): Problem | undefined {
  const fail = (reason: string, message: string) => ({
    code: `${op.type}.path.${reason}`,
    message,
  });
  if (op.path.length > MAX_PATH_DEPTH) {
    return fail("too_deep", `Path has ${op.path.length} segments: the limit is ${MAX_PATH_DEPTH}`);
  }
  for (const segment of op.path) {
    if (segment === "") return fail("empty_segment", "Path contains an empty segment");
    const bytes = overBytes(segment, MAX_SEGMENT_BYTES);
    if (bytes !== undefined) {
      return fail(
        "segment_too_long",
        `Path segment is ${bytes} bytes: the limit is ${MAX_SEGMENT_BYTES}`,
      );
    }
    if (FORBIDDEN_SEGMENTS.has(segment)) {
      return fail(
        "proto_polluted",
        `Path segment "${segment}" is not allowed: it could pollute prototypes`,
      );
    }
  }
  return undefined;
}

/** The value being updated, and whether it is still the stand-in for a missing key. */
class Working {
  value: JsonValue;
  missing: boolean;

  constructor(current: JsonValue | undefined) {
    this.missing = current === undefined;
    this.value = current === undefined ? {} : current;
  }

  apply(op: UpdateOp): Problem | undefined {
    switch (op.type) {
      case "set":
        return this.#set(op.path, op.value);
      case "remove":
        return this.#remove(op.path);
      case "increment":
        return this.#add(op.type, op.path, op.by);
      case "decrement":
        return this.#add(op.type, op.path, -op.by);
      case "merge":
        return this.#merge(op.path, op.value);
      case "append":
        return this.#append(op.path, op.value);
    }
  }

  #set(path: string[], value: JsonValue): Problem | undefined {
    const [field] = path;
    if (field === undefined) {
      this.value = value;
      return undefined;
    }
    if (!isJsonObject(this.value)) return this.#notObject("set", field);
    this.value[field] = value;
    return undefined;
  }

  #remove(path: string[]): Problem | undefined {
    const [field] = path;
    if (field === undefined) {
      this.value = null;
      return undefined;
    }
    if (!isJsonObject(this.value)) return this.#notObject("remove", field);
    delete this.value[field];
    return undefined;
  }

  #add(type: "increment" | "decrement", path: string[], by: number): Problem | undefined {
    const [field] = path;
    if (field === undefined) {
      const sum = add(type, this.missing ? 0 : this.value, by, "the whole value");
      if (isProblem(sum)) return sum;
      this.value = sum as JsonValue;
      return undefined;
    }
    if (!isJsonObject(this.value)) return this.#notObject(type, field);
    const sum = add(
      type,
      Object.hasOwn(this.value, field) ? this.value[field] : 0,
      by,
      `"${field}"`,
    );
    if (isProblem(sum)) return sum;
    this.value[field] = sum as JsonValue;
    return undefined;
  }

  #merge(path: string[], value: JsonValue): Problem | undefined {
    const problem = mergeValueProblem(value);
    if (problem !== undefined) return problem;
    if (!isJsonObject(this.value)) return this.#notObject("merge", path[0]);
    const target = walkOrCreate(this.value, path);
    Object.assign(target, value);
    return undefined;
  }

  #append(path: string[], value: JsonValue): Problem | undefined {
    if (path.length === 0) {
      const next = appended(this.missing ? null : this.value, value, "the whole value");
      if ("code" in next) return next;
      this.value = next.value;
      return undefined;
    }
    if (!isJsonObject(this.value)) return this.#notObject("append", path[0]);
    const parent = walkOrCreate(this.value, path.slice(0, -1));
    const leaf = path[path.length - 1] as string;
    if (!Object.hasOwn(parent, leaf)) {
      // A missing nested leaf always starts an array; a first-level one keeps strings as strings.
      parent[leaf] = path.length === 1 && typeof value === "string" ? value : [value];
      return undefined;
    }
    const next = appended(parent[leaf] as JsonValue, value, `"${leaf}"`);
    if ("code" in next) return next;
    parent[leaf] = next.value;
    return undefined;
  }

  #notObject(type: OpType, field: string | undefined): Problem {
    return {
      code: `${type}.target_not_object`,
      message: `Cannot ${type} ${
        field === undefined ? "the whole value" : `"${field}"`
      }: the value is ${jsonTypeName(this.value)}, not an object`,
    };
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === "object" && value !== null && "code" in value;
}

/**
 * `current + by`. Whole numbers stay exact beyond 2^53 (a stored integer kept
 * as its digits, or a sum of two integers that passes 2^53), as they are in
 * the reference's 64-bit integers; anything else is a double.
 */
function add(
  type: "increment" | "decrement",
  current: JsonValue | undefined,
  by: number,
  what: string,
) {
  if (isRawInteger(current)) {
    if (!Number.isInteger(by)) {
      return {
        code: `${type}.not_exact`,
        message: `Cannot ${type} ${what} by ${
          Math.abs(by)
        }: it holds the integer ${current.rawJSON}, beyond 2^53, which stays exact only with whole steps`,
      };
    }
    return exactInteger(BigInt(current.rawJSON) + BigInt(by));
  }
  if (typeof current !== "number") {
    return {
      code: `${type}.not_number`,
      message: `Cannot ${type} ${what}: it holds ${jsonTypeName(current)}, not a number`,
    };
  }
  const sum = current + by;
  if (Number.isSafeInteger(current) && Number.isSafeInteger(by) && !Number.isSafeInteger(sum)) {
    return exactInteger(BigInt(current) + BigInt(by));
  }
  if (!Number.isFinite(sum)) {
    return {
      code: `${type}.overflow`,
      message: `Cannot ${type} ${what}: the result is not a finite number`,
    };
  }
  return sum;
}

function appended(
  target: JsonValue,
  value: JsonValue,
  what: string,
): { value: JsonValue } | Problem {
  if (Array.isArray(target)) {
    target.push(value);
    return { value: target };
  }
  if (target === null) return { value: typeof value === "string" ? value : [value] };
  if (typeof target === "string") {
    if (typeof value === "string") return { value: target + value };
    return {
      code: "append.type_mismatch",
      message: `Cannot append ${
        jsonTypeName(value)
      } to ${what}: it holds a string, so the value must be a string`,
    };
  }
  return {
    code: "append.type_mismatch",
    message: `Cannot append to ${what}: it holds ${
      jsonTypeName(target)
    }, not an array, a string or null`,
  };
}

function mergeValueProblem(value: JsonValue): Problem | undefined {
  if (!isJsonObject(value)) {
    return {
      code: "merge.value.not_an_object",
      message: `Merge value is ${jsonTypeName(value)}, not an object`,
    };
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_MERGE_KEYS) {
    return {
      code: "merge.value.too_many_keys",
      message: `Merge value has ${keys.length} top-level keys: the limit is ${MAX_MERGE_KEYS}`,
    };
  }
  const forbidden = keys.find((k) => FORBIDDEN_SEGMENTS.has(k));
  if (forbidden !== undefined) {
    return {
      code: "merge.value.proto_polluted",
      message: `Merge value key "${forbidden}" is not allowed: it could pollute prototypes`,
    };
  }
  const depth = jsonDepth(value, MAX_MERGE_DEPTH + 1);
  if (depth > MAX_MERGE_DEPTH) {
    return {
      code: "merge.value.too_deep",
      message: `Merge value is nested more than ${MAX_MERGE_DEPTH} levels deep`,
    };
  }
  return undefined;
}

/** Nesting depth of objects and arrays (a scalar is 0), counting no further than `cap`. */
function jsonDepth(value: JsonValue, cap: number): number {
  if (value === null || typeof value !== "object" || cap === 0) return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    deepest = Math.max(deepest, jsonDepth(child, cap - 1));
    if (deepest >= cap - 1) break;
  }
  return 1 + deepest;
}

/** The object at `path` under `root`, replacing missing or non-object nodes on the way by `{}`. */
function walkOrCreate(root: JsonObject, path: readonly string[]): JsonObject {
  let node = root;
  for (const segment of path) {
    const child = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (isJsonObject(child)) node = child;
    else {
      const fresh: JsonObject = {};
      node[segment] = fresh;
      node = fresh;
    }
  }
  return node;
}

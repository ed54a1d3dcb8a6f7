/**
 * Zod issues, from the engine's schema or a built-in worker's, turned into
 * problems in the style of the rest of the engine: sentence case, the
 * offending value quoted.
 *
 * @module
 */

import { closest, didYouMean } from "../suggest.ts";
import type { FieldPath } from "./locate.ts";

/** The parts of a zod issue this module reads (from any zod schema). */
export interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  values?: unknown[];
}

/** One problem of the file, at one field. */
export interface Problem {
  path: FieldPath;
  problem: string;
  /** Points at the field's key (an unknown field) rather than its value. */
  atKey: boolean;
  /** The unknown keys of a map this problem is about (the first is at `path`). */
  unknownKeys?: string[];
  /** A required field is missing at `path`. */
  missing?: boolean;
}

/** Whether `error` is a ZodError (of any copy of zod). */
export function isZodError(error: unknown): error is { issues: Issue[] } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

/**
 * Describes `issue`; `root` is the value the issue's path starts from. With
 * `schema` (the one `root` was checked against), an unknown field that looks
 * like a typo of a field the schema has says which (`did you mean "port"?`).
 */
export function describeIssue(
  issue: Issue,
  root: unknown,
  options: {
    /** Where `root` is in the file (a built-in worker's `config` block). */
    prefix?: FieldPath;
    /** The zod schema `root` was checked against, for "did you mean". */
    schema?: unknown;
    /** The value was written in YAML (the default): a number or boolean where text was meant gets "quote it". */
    yaml?: boolean;
  } = {},
): Problem {
  const { prefix = [], schema, yaml = true } = options;
  const path = [...prefix, ...issue.path];
  const value = valueAt(root, issue.path);
  if (issue.code === "unrecognized_keys" && issue.keys && issue.keys.length > 0) {
    const [first, ...more] = issue.keys;
    const also = more.length > 0 ? ` (also ${more.map((key) => `"${key}"`).join(", ")})` : "";
    const known = schema === undefined ? [] : keysOf(schema, issue.path);
    return {
      path: [...path, first!],
      problem: `Unknown field${also}${didYouMean(first!, known)}`,
      atKey: true,
      unknownKeys: issue.keys,
    };
  }
  const problem = problemOf(issue, value, yaml);
  return value === undefined && issue.code === "invalid_type"
    ? { path, problem, atKey: false, missing: true }
    : { path, problem, atKey: false };
}

/**
 * A missing field whose map has an unknown key that is a typo of it is told
 * as that typo, at the key: `entyr: Unknown field: did you mean "entry"?`,
 * not `entry: Missing required field` at the map, which names neither the
 * key written nor its line.
 */
export function preferTypos(problems: readonly Problem[]): Problem[] {
  /** Each unknown-key problem that explains a missing field, told as that typo instead. */
  const told = new Map<Problem, Problem>();
  const explained = new Set<Problem>();
  for (const missing of problems) {
    const name = missing.path.at(-1);
    if (!missing.missing || typeof name !== "string") continue;
    const parent = missing.path.slice(0, -1);
    for (const unknown of problems) {
      if (!unknown.unknownKeys || told.has(unknown)) continue;
      if (!samePath(unknown.path.slice(0, -1), parent)) continue;
      const typo = unknown.unknownKeys.find((key) => closest(key, [name]) === name);
      if (typo === undefined) continue;
      told.set(unknown, {
        path: [...parent, typo],
        problem: `Unknown field: did you mean "${name}"? ("${name}" is required)`,
        atKey: true,
      });
      explained.add(missing);
      break;
    }
  }
  return problems.filter((p) => !explained.has(p)).map((p) => told.get(p) ?? p);
}

function samePath(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/**
 * The field names of the map at `path` in a zod schema, as far as its shape
 * tells (through optional, default, nullable, arrays, records, pipes and
 * unions); none where it cannot tell.
 */
function keysOf(schema: unknown, path: readonly PropertyKey[]): string[] {
  let at: unknown[] = [schema];
  for (const part of [...path, undefined]) {
    const next: unknown[] = [];
    const seen = new Set<unknown>();
    const visit = (s: unknown) => {
      const def = (s as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
      if (!def || seen.has(s)) return;
      seen.add(s);
      switch (def.type) {
        case "optional":
        case "nullable":
        case "default":
        case "prefault":
        case "catch":
        case "readonly":
        case "nonoptional":
          return visit(def.innerType);
        case "pipe":
          return visit(def.in);
        case "union":
          return (def.options as unknown[]).forEach(visit);
        case "lazy":
          return visit((def.getter as () => unknown)());
      }
      if (part === undefined) return void next.push(s);
      if (def.type === "object") next.push((def.shape as Record<PropertyKey, unknown>)[part]);
      else if (def.type === "array" && typeof part === "number") next.push(def.element);
      else if (def.type === "record") next.push(def.valueType);
    };
    at.forEach(visit);
    at = next.filter((s) => s !== undefined);
  }
  return at.flatMap((s) => {
    const def = (s as { _zod: { def: Record<string, unknown> } })._zod.def;
    return def.type === "object" ? Object.keys(def.shape as object) : [];
  });
}

function problemOf(issue: Issue, value: unknown, yaml: boolean): string {
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "Missing required field";
      if (value === null && issue.expected === "array") {
        return 'Expected a list, got null: write "[]" for none';
      }
      // `token: 0123` or `${T}` holding `true`: YAML read a number or a boolean.
      if (
        yaml && issue.expected === "string" &&
        (typeof value === "number" || typeof value === "boolean")
      ) {
        return `Expected a string, got ${describe(value)}: quote it`;
      }
      return `Expected ${EXPECTED[issue.expected ?? ""] ?? issue.expected}, got ${describe(value)}`;
    case "too_big":
    case "too_small": {
      const big = issue.code === "too_big";
      const limit = big ? issue.maximum : issue.minimum;
      // "int": beyond the safe integers (2^53 - 1), which YAML numbers can be but JS cannot hold.
      if (issue.origin === "number" || issue.origin === "int") {
        const bound = issue.inclusive
          ? (big ? "at most" : "at least")
          : (big ? "less than" : "greater than");
        return `Must be ${bound} ${limit}, got ${describe(value)}`;
      }
      if (issue.origin === "string" && !big && Number(limit) === 1) return "Must not be empty";
      if (issue.origin === "string" && typeof value === "string") {
        return `Must be ${
          big ? "at most" : "at least"
        } ${limit} characters long, got ${value.length}`;
      }
      return issue.message;
    }
    case "invalid_value":
      if (issue.values) {
        const values = issue.values.map((v) => describe(v));
        const expected = values.length > 2 ? `one of ${values.join(", ")}` : values.join(" or ");
        return `Expected ${expected}, got ${describe(value)}`;
      }
      return issue.message;
    default:
      return issue.message;
  }
}

const EXPECTED: Record<string, string> = {
  number: "a number",
  int: "an integer",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "a map",
  record: "a map",
};

/** `"abc"`, `3`, `null`, `a list`, `a map`. */
export function describe(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a map";
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

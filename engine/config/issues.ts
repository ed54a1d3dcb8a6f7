/**
 * Zod issues, from the engine's schema or a built-in worker's, turned into
 * problems in the style of the rest of the engine: sentence case, the
 * offending value quoted.
 *
 * @module
 */

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
}

/** Whether `error` is a ZodError (of any copy of zod). */
export function isZodError(error: unknown): error is { issues: Issue[] } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

/** Describes `issue`; `root` is the value the issue's path starts from. */
export function describeIssue(issue: Issue, root: unknown, prefix: FieldPath = []): Problem {
  const path = [...prefix, ...issue.path];
  const value = valueAt(root, issue.path);
  if (issue.code === "unrecognized_keys" && issue.keys && issue.keys.length > 0) {
    const [first, ...more] = issue.keys;
    const also = more.length > 0 ? ` (also ${more.map((key) => `"${key}"`).join(", ")})` : "";
    return { path: [...path, first!], problem: `Unknown field${also}`, atKey: true };
  }
  return { path, problem: problemOf(issue, value), atKey: false };
}

function problemOf(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "Missing required field";
      if (value === null && issue.expected === "array") {
        return 'Expected a list, got null: write "[]" for none';
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

/**
 * The route table: which `http` triggers are live and what they bind. Pure:
 * every change returns a new table or a refusal, never mutates, so a router
 * built from one table stays valid while the next one is being made.
 *
 * @module
 */
import type { HttpMethod } from "./config.ts";

export type Segment =
  | { kind: "literal"; value: string }
  | { kind: "param"; name: string };

/** A parsed `api_path`: always with its leading `/`. */
export interface Pattern {
  pattern: string;
  segments: readonly Segment[];
}

/** What one live `http` trigger binds. */
export interface Route extends Pattern {
  triggerId: string;
  workerId: string;
  functionId: string;
  method: HttpMethod;
  conditionFunctionId?: string;
  middlewareFunctionIds: readonly string[];
  /** The trigger's `metadata`, passed on as the handler call's metadata. */
  metadata?: unknown;
}

export type PatternOutcome =
  | { kind: "ok"; value: Pattern }
  | { kind: "invalid"; reason: string };

export type TableOutcome =
  | { kind: "changed"; table: RouteTable }
  | { kind: "unchanged" }
  | { kind: "refused"; reason: string };

const LITERAL = /^[A-Za-z0-9\-._~!$&'()+,;=@:%]+$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Parses an `api_path`: literal segments and `:name` parameters; adds a missing leading `/`. */
export function parsePattern(apiPath: string): PatternOutcome {
  if (apiPath.trim() === "") return invalid("api_path must not be empty");
  const pattern = apiPath.startsWith("/") ? apiPath : `/${apiPath}`;
  if (pattern === "/") return { kind: "ok", value: { pattern, segments: [] } };
  const parts = pattern.slice(1).split("/");
  const segments: Segment[] = [];
  const names = new Set<string>();
  for (const [index, part] of parts.entries()) {
    const trailing = index === parts.length - 1;
    if (part === "") {
      // A trailing slash is kept (it is significant); an empty inner segment is a typo.
      if (trailing) segments.push({ kind: "literal", value: "" });
      else return invalid(`api_path ${q(apiPath)} has an empty segment: remove the doubled "/"`);
      continue;
    }
    if (part.startsWith(":")) {
      const name = part.slice(1);
      if (!PARAM_NAME.test(name)) {
        return invalid(
          `api_path ${q(apiPath)} has an invalid parameter ${q(part)}: ` +
            "a name starts with a letter or '_' and holds letters, digits, '_' and '-'",
        );
      }
      if (names.has(name)) {
        return invalid(`api_path ${q(apiPath)} names the parameter ${q(part)} twice`);
      }
      names.add(name);
      segments.push({ kind: "param", name });
      continue;
    }
    if (!LITERAL.test(part)) {
      return invalid(
        `api_path ${q(apiPath)} has an unsupported segment ${q(part)}: ` +
          "only literal segments and whole-segment :name parameters are allowed (no wildcards, braces or '?')",
      );
    }
    segments.push({ kind: "literal", value: part });
  }
  return { kind: "ok", value: { pattern, segments } };
}

/** `GET /users/:id`: how routes are named in messages and keyed in the table. */
export function routeKey(route: { method: string; pattern: string }): string {
  return `${route.method} ${route.pattern}`;
}

/**
 * Live routes by `METHOD /pattern`. Several triggers may bind the same route to
 * the same function (a restarted worker registering again before its old
 * connection is gone); the most recent one is the active binding, and the
 * route lives until the last of them is removed.
 */
export class RouteTable {
  static readonly empty: RouteTable = new RouteTable(new Map(), new Map());

  readonly #byKey: ReadonlyMap<string, readonly Route[]>;
  readonly #keyOf: ReadonlyMap<string, string>;

  private constructor(
    byKey: ReadonlyMap<string, readonly Route[]>,
    keyOf: ReadonlyMap<string, string>,
  ) {
    this.#byKey = byKey;
    this.#keyOf = keyOf;
  }

  /** How many distinct routes are live. */
  get size(): number {
    return this.#byKey.size;
  }

  /** The active binding of each live route, in the order the routes first appeared. */
  routes(): Route[] {
    const out: Route[] = [];
    for (const stack of this.#byKey.values()) out.push(stack[stack.length - 1]!);
    return out;
  }

  /** The live route with trigger `triggerId`, active or not. */
  get(triggerId: string): Route | undefined {
    const key = this.#keyOf.get(triggerId);
    return key === undefined
      ? undefined
      : this.#byKey.get(key)?.find((r) => r.triggerId === triggerId);
  }

  /** Adds (or, for a known trigger id, replaces) a binding, unless it conflicts with a live route. */
  add(route: Route): TableOutcome {
    const base = this.#without(route.triggerId);
    const key = routeKey(route);
    for (const [otherKey, stack] of base.byKey) {
      const other = stack[stack.length - 1]!;
      if (otherKey === key) {
        if (other.functionId !== route.functionId) {
          return refused(
            `Cannot bind route ${q(key)} to function ${q(route.functionId)}: ` +
              `already bound to function ${q(other.functionId)} by trigger ${q(other.triggerId)}`,
          );
        }
        continue;
      }
      const clash = paramClash(route.segments, other.segments);
      if (clash) {
        return refused(
          `Cannot register route ${q(key)}: parameter ":${clash[0]}" clashes with ":${clash[1]}" ` +
            `of route ${q(otherKey)}: parameters at the same position need the same name`,
        );
      }
    }
    const byKey = new Map(base.byKey);
    byKey.set(key, [...(byKey.get(key) ?? []), route]);
    const keyOf = new Map(base.keyOf);
    keyOf.set(route.triggerId, key);
    return { kind: "changed", table: new RouteTable(byKey, keyOf) };
  }

  /** Removes the binding of trigger `triggerId`; the route goes when its last binding does. */
  remove(triggerId: string): TableOutcome {
    if (!this.#keyOf.has(triggerId)) return { kind: "unchanged" };
    const { byKey, keyOf } = this.#without(triggerId);
    return { kind: "changed", table: new RouteTable(byKey, keyOf) };
  }

  #without(triggerId: string): {
    byKey: ReadonlyMap<string, readonly Route[]>;
    keyOf: ReadonlyMap<string, string>;
  } {
    const key = this.#keyOf.get(triggerId);
    if (key === undefined) return { byKey: this.#byKey, keyOf: this.#keyOf };
    const byKey = new Map(this.#byKey);
    const rest = (byKey.get(key) ?? []).filter((r) => r.triggerId !== triggerId);
    if (rest.length === 0) byKey.delete(key);
    else byKey.set(key, rest);
    const keyOf = new Map(this.#keyOf);
    keyOf.delete(triggerId);
    return { byKey, keyOf };
  }
}

/**
 * The first position where both paths have a parameter, under the same
 * prefix, with different names: `[name in a, name in b]`. Such routes would
 * give one request two different parameter names, so they are refused.
 */
function paramClash(a: readonly Segment[], b: readonly Segment[]): [string, string] | undefined {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.kind === "param" && y.kind === "param") {
      if (x.name !== y.name) return [x.name, y.name];
    } else if (x.kind !== "literal" || y.kind !== "literal" || x.value !== y.value) {
      return undefined;
    }
  }
  return undefined;
}

function q(value: string): string {
  return JSON.stringify(value);
}

function invalid(reason: string): PatternOutcome {
  return { kind: "invalid", reason };
}

function refused(reason: string): TableOutcome {
  return { kind: "refused", reason };
}

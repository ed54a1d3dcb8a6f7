/**
 * The route table: which `http` triggers are live and what they bind. Pure
 * (data in, decision out, no I/O): a change is applied or refused with the
 * reason, and a refused change leaves the table as it was.
 *
 * @module
 */
import type { HttpMethod } from "./config.ts";
import { type Leaving, ShapeTrie } from "./shapes.ts";

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
  | { kind: "changed" }
  | { kind: "unchanged" }
  | { kind: "refused"; reason: string };

const LITERAL = /^[A-Za-z0-9\-._~!$&'()+,;=@:%]+$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * The path in the form routes are written in (RFC 3986 §6.2.2): an escaped
 * unreserved character is that character (`/users/%6De` is `/users/me`, so
 * it reaches that literal route, not `/users/:id`), other escapes upper case
 * (`%c3%a9` is `%C3%A9`). Escapes that matter to the path (`%2F`, `%25`) stay
 * escaped. Request paths are matched in this form, so patterns are kept in it.
 */
export function normalizeEscapes(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(c) ? c : escape.toUpperCase();
  });
}

/**
 * Parses an `api_path`: literal segments and `:name` parameters; adds a
 * missing leading `/`, and writes escapes in the form requests are matched in
 * ({@link normalizeEscapes}: `/caf%c3%a9` is `/caf%C3%A9`).
 */
export function parsePattern(apiPath: string): PatternOutcome {
  if (apiPath.trim() === "") return invalid("api_path must not be empty");
  const written = apiPath.startsWith("/") ? apiPath : `/${apiPath}`;
  const pattern = written.includes("%") ? normalizeEscapes(written) : written;
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
    if (!LITERAL.test(part) && !/[*{}?]/.test(part)) {
      // Letters beyond ASCII, spaces, quotes: a request carries them percent-encoded.
      const encoded = [...part].map((c) => LITERAL.test(c) ? c : encodeURIComponent(c)).join("");
      return invalid(
        `api_path ${q(apiPath)} has a segment ${q(part)} with characters a URL path carries ` +
          `percent-encoded: write it as ${q(encoded)} (requests are matched on the path as sent)`,
      );
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

/** The bindings of one route (`METHOD /pattern`); the most recent is the active one. */
interface Entry {
  /** Where the route first appeared, among the routes ever added. */
  order: number;
  bindings: Route[];
}

/**
 * Live routes by `METHOD /pattern`. Several triggers may bind the same route to
 * the same function (a restarted worker registering again before its old
 * connection is gone); the most recent one is the active binding, and the
 * route lives until the last of them is removed.
 *
 * The table is changed in place by its owner ({@link LiveRoutes}); a refused
 * change changes nothing. A change costs the length of the route's pattern,
 * whatever the number of live routes: the conflict checks look at the routes
 * sharing the pattern's prefix only ({@link ShapeTrie}). Matchers are built
 * from a copy of {@link routes}, so a change never reaches a matcher in use.
 */
export class RouteTable {
  /** In the order the routes first appeared. */
  readonly #byKey = new Map<string, Entry>();
  readonly #keyOf = new Map<string, string>();
  readonly #shapes = new ShapeTrie();
  #added = 0;

  /** How many distinct routes are live. */
  get size(): number {
    return this.#byKey.size;
  }

  /** The active binding of each live route, in the order the routes first appeared. */
  routes(): Route[] {
    const out: Route[] = [];
    for (const { bindings } of this.#byKey.values()) out.push(bindings[bindings.length - 1]!);
    return out;
  }

  /** The live route with trigger `triggerId`, active or not. */
  get(triggerId: string): Route | undefined {
    const key = this.#keyOf.get(triggerId);
    return key === undefined
      ? undefined
      : this.#byKey.get(key)?.bindings.find((r) => r.triggerId === triggerId);
  }

  /** Adds (or, for a known trigger id, replaces) a binding, unless it conflicts with a live route. */
  add(route: Route): TableOutcome {
    const key = routeKey(route);
    // The checks see the table as it would be without the trigger's previous binding.
    const entry = this.#byKey.get(key);
    const other = entry && lastOtherThan(entry.bindings, route.triggerId);
    if (other && other.functionId !== route.functionId) {
      return refused(
        `Cannot bind route ${q(key)} to function ${q(route.functionId)}: ` +
          `already bound to function ${q(other.functionId)} by trigger ${q(other.triggerId)}`,
      );
    }
    const clash = this.#shapes.clash(route.segments, this.#leaving(route.triggerId));
    if (clash) {
      const [name, otherName] = clash.names;
      return refused(
        `Cannot register route ${q(key)}: parameter ":${name}" clashes with ":${otherName}" ` +
          `of route ${
            q(this.#first(clash.keys))
          }: parameters at the same position need the same name`,
      );
    }
    this.#unbind(route.triggerId);
    const bound = this.#byKey.get(key);
    if (bound) bound.bindings.push(route);
    else {
      this.#byKey.set(key, { order: this.#added++, bindings: [route] });
      this.#shapes.insert(key, route.segments);
    }
    this.#keyOf.set(route.triggerId, key);
    return CHANGED;
  }

  /** Removes the binding of trigger `triggerId`; the route goes when its last binding does. */
  remove(triggerId: string): TableOutcome {
    return this.#unbind(triggerId) ? CHANGED : UNCHANGED;
  }

  /** The route that goes when trigger `triggerId`'s binding does (its only binding). */
  #leaving(triggerId: string): Leaving | undefined {
    const key = this.#keyOf.get(triggerId);
    const bindings = key === undefined ? undefined : this.#byKey.get(key)?.bindings;
    return key !== undefined && bindings?.length === 1
      ? { key, segments: bindings[0]!.segments }
      : undefined;
  }

  /** Of `keys`, the route that appeared first (the one a scan of the table meets first). */
  #first(keys: readonly string[]): string {
    let first: string | undefined;
    let order = Infinity;
    for (const key of keys) {
      const at = this.#byKey.get(key)?.order ?? Infinity;
      if (at < order) [first, order] = [key, at];
    }
    return first ?? keys[0] ?? "";
  }

  #unbind(triggerId: string): boolean {
    const key = this.#keyOf.get(triggerId);
    if (key === undefined) return false;
    this.#keyOf.delete(triggerId);
    const entry = this.#byKey.get(key)!;
    const at = entry.bindings.findIndex((r) => r.triggerId === triggerId);
    const [removed] = entry.bindings.splice(at, 1);
    if (entry.bindings.length === 0) {
      this.#byKey.delete(key);
      this.#shapes.remove(key, removed!.segments);
    }
    return true;
  }
}

const CHANGED: TableOutcome = { kind: "changed" };
const UNCHANGED: TableOutcome = { kind: "unchanged" };

/** The most recent binding not made by trigger `triggerId`. */
function lastOtherThan(bindings: readonly Route[], triggerId: string): Route | undefined {
  for (let i = bindings.length - 1; i >= 0; i--) {
    if (bindings[i]!.triggerId !== triggerId) return bindings[i];
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

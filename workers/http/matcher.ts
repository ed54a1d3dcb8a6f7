/**
 * Turns a {@link RouteTable} into a matcher: a Hono `TrieRouter` filled once
 * and never touched again. A changed table gets a fresh matcher; the old one
 * keeps serving the requests that already hold it.
 *
 * Hono's routers return every route that matches a path in the order the
 * routes were added, so routes are added most specific first (at the first
 * segment where two patterns differ, a literal before a parameter), and the
 * first match for the request's method wins. `RegExpRouter` refuses a
 * parameter added after an overlapping literal, so the trie router is used.
 *
 * @module
 */
import { TrieRouter } from "hono/router/trie-router";
import { HTTP_METHODS, type HttpMethod } from "./config.ts";
import { normalizeEscapes, type Route, type RouteTable, type Segment } from "./routes.ts";

export type MatchOutcome =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method_not_allowed"; allow: HttpMethod[] }
  | { kind: "not_found" };

export interface Matcher {
  /** Live routes, most specific first. */
  readonly routes: readonly Route[];
  /** Finds the route for `method` and a raw (still percent-encoded) `path`. */
  match(method: string, path: string): MatchOutcome;
}

const NOT_FOUND: MatchOutcome = { kind: "not_found" };

/** Builds the matcher for `table`. */
export function buildMatcher(table: RouteTable): Matcher {
  const routes = table.routes().sort((a, b) => compareSpecificity(a.segments, b.segments));
  const router = new TrieRouter<Route>();
  for (const route of routes) router.add("ALL", route.pattern, route);
  return {
    routes,
    match(method, path) {
      if (routes.length === 0) return NOT_FOUND;
      if (path.includes("%")) path = normalizeEscapes(path);
      const candidates = router.match("ALL", path)[0] as [Route, Record<string, string>][];
      if (candidates.length === 0) return NOT_FOUND;
      let headViaGet: [Route, Record<string, string>] | undefined;
      for (const candidate of candidates) {
        const route = candidate[0];
        if (route.method === method) return found(route, candidate[1]);
        if (method === "HEAD" && route.method === "GET") headViaGet ??= candidate;
      }
      if (headViaGet) return found(headViaGet[0], headViaGet[1]);
      return { kind: "method_not_allowed", allow: allowed(candidates) };
    },
  };
}

/** Negative when `a` is more specific than `b`: at the first differing kind, a literal. */
export function compareSpecificity(a: readonly Segment[], b: readonly Segment[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i]!.kind;
    const y = b[i]!.kind;
    if (x !== y) return x === "literal" ? -1 : 1;
  }
  return 0;
}

function found(route: Route, raw: Record<string, string>): MatchOutcome {
  // Copied: the router's objects have a null prototype and are its own.
  const params: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name]!;
    params[name] = value.includes("%") ? decode(value) : value;
  }
  return { kind: "found", route, params };
}

/**
 * `value` with its escapes decoded, as far as they can be: a stray `%` (one
 * not followed by two hex digits) is kept as it is, and so are escapes of
 * bytes that are not UTF-8, while the escapes around them are decoded
 * (`100%%20cotton` is `100% cotton`, not left undecoded whole).
 */
function decode(value: string): string {
  return value.replace(ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return decodeEach(run);
    }
  });
}

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/** A run of escapes with bad UTF-8 in it: each character that decodes, the other escapes as they are. */
function decodeEach(run: string): string {
  let out = "";
  for (let at = 0; at < run.length;) {
    const lead = parseInt(run.slice(at + 1, at + 3), 16);
    const bytes = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    try {
      out += decodeURIComponent(run.slice(at, at + 3 * bytes));
      at += 3 * bytes;
    } catch {
      out += run.slice(at, at + 3);
      at += 3;
    }
  }
  return out;
}

/** The methods some matching route takes, in {@link HTTP_METHODS} order; GET implies HEAD. */
function allowed(candidates: [Route, unknown][]): HttpMethod[] {
  const methods = new Set<HttpMethod>();
  for (const [route] of candidates) {
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  return HTTP_METHODS.filter((m) => methods.has(m));
}

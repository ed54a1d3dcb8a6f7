/**
 * Secrets never enter the log or trace stores: values under keys such as
 * `authorization`, `cookie` or `x-api-key` (and configured names) are
 * replaced by `"[redacted]"` where entries are written, so nothing that
 * reads the stores (the console, `engine logs`, `engine::logs::list`) can
 * show them. The same walk bounds what an entry holds: a string longer than
 * {@linkcode MAX_STRING} is cut, and a list or map of more than
 * {@linkcode MAX_ITEMS} entries keeps its first ones, and a list or map
 * nested more than 32 levels deep is replaced by a note (a count of entries
 * then bounds the stores' memory too).
 *
 * @module
 */

/** What a secret's value is replaced by. */
export const REDACTED = "[redacted]";

/**
 * Keys whose values are always redacted, compared without regard to case:
 * credential headers, the names secrets usually go by in a worker's log
 * data (`logger.info("login", { user, password })`), and a channel ref's key.
 */
export const SECRET_KEYS: readonly string[] = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "api-key",
  "api_key",
  "apikey",
  "password",
  "passwd",
  "secret",
  "client_secret",
  "private_key",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  // A data channel ref's credential (engine-http puts two in every handler's request).
  "access_key",
];

import { cutText, MAX_STRING } from "./cut.ts";

const MAX_DEPTH = 32;
/** What a list or map nested past {@linkcode MAX_DEPTH} levels is replaced by. */
const TOO_DEEP = `[nested more than ${MAX_DEPTH} levels deep: cut]`;

/** Most items a list, or keys a map, keeps; a last item or key says how many more were cut. */
export const MAX_ITEMS = 1_000;

/** How many keys' verdicts one redactor remembers (the same few keys come by again and again). */
const MAX_REMEMBERED = 4096;
/** Longest key whose verdict is remembered: longer ones are checked each time, never pinned. */
const MAX_REMEMBERED_KEY = 256;
/** Longest key an entry keeps (cut like a long string past it). */
export const MAX_KEY = 1_024;

/**
 * A function that returns `value` with every value under a secret key
 * replaced. Objects and arrays are copied only where something changed, so
 * the common case allocates nothing.
 *
 * @example
 * ```ts
 * const redact = redactor(["x-session"]);
 * redact({ headers: { Authorization: "Bearer t", "x-session": "s", accept: "*" } });
 * // { headers: { Authorization: "[redacted]", "x-session": "[redacted]", accept: "*" } }
 * ```
 */
export function redactor(extra: readonly string[] = []): (value: unknown) => unknown {
  const keys = new Set([...SECRET_KEYS, ...extra].map((k) => k.toLowerCase()));
  const verdicts = new Map<string, boolean>();
  // `Authorization`, and OpenTelemetry's `http.request.header.authorization`.
  const secret = (key: string) => {
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const lower = key.toLowerCase();
      verdict = keys.has(lower) || keys.has(lower.slice(lower.lastIndexOf(".") + 1));
      if (verdicts.size < MAX_REMEMBERED && key.length <= MAX_REMEMBERED_KEY) {
        verdicts.set(key, verdict);
      }
    }
    return verdict;
  };
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return cutText(value, MAX_STRING);
    if (value === null || typeof value !== "object") return value;
    // Past it, nothing is walked: a secret or an unbounded list would be kept as it is.
    if (depth > MAX_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) {
      // A header pair: ["authorization", "Bearer …"].
      if (value.length === 2 && typeof value[0] === "string" && secret(value[0])) {
        return value[1] === REDACTED ? value : [value[0], REDACTED];
      }
      const kept = Math.min(value.length, MAX_ITEMS);
      let copy: unknown[] | undefined = value.length > kept
        ? [...value.slice(0, kept), `… [${value.length - kept} more items cut]`]
        : undefined;
      for (let i = 0; i < kept; i++) {
        const item = value[i];
        const next = walk(item, depth + 1);
        if (next !== item) (copy ??= [...value])[i] = next;
      }
      return copy ?? value;
    }
    if (!isPlainObject(value)) return value;
    const keys = Object.keys(value);
    let copy: Record<string, unknown> | undefined;
    if (keys.length > MAX_ITEMS) {
      copy = {};
      for (const key of keys.slice(0, MAX_ITEMS)) copy[key] = value[key];
      copy["…"] = `[${keys.length - MAX_ITEMS} more keys cut]`;
    }
    let longKeys = false;
    for (const key of keys.length > MAX_ITEMS ? keys.slice(0, MAX_ITEMS) : keys) {
      const item = value[key];
      const next = secret(key) ? REDACTED : walk(item, depth + 1);
      if (next !== item) (copy ??= { ...value })[key] = next;
      if (key.length > MAX_KEY) longKeys = true;
    }
    return longKeys ? withKeysCut(copy ?? value) : copy ?? value;
  };
  return (value) => walk(value, 0);
}

/** `value` with every key longer than {@linkcode MAX_KEY} cut, in the same order. */
function withKeysCut(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Defined, not assigned: a key "__proto__" stays a key.
    Object.defineProperty(out, cutText(key, MAX_KEY), {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

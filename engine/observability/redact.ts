/**
 * Secrets never enter the log or trace stores: values under keys such as
 * `authorization`, `cookie` or `x-api-key` (and configured names) are
 * replaced by `"[redacted]"` where entries are written, so nothing that
 * reads the stores (the console, `engine logs`, `engine::logs::list`) can
 * show them.
 *
 * @module
 */

/** What a secret's value is replaced by. */
export const REDACTED = "[redacted]";

/**
 * Keys whose values are always redacted, compared without regard to case:
 * credential headers, and the names secrets usually go by in a worker's log
 * data (`logger.info("login", { user, password })`).
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
];

const MAX_DEPTH = 32;

/** How many keys' verdicts one redactor remembers (the same few keys come by again and again). */
const MAX_REMEMBERED = 4096;

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
      if (verdicts.size < MAX_REMEMBERED) verdicts.set(key, verdict);
    }
    return verdict;
  };
  const walk = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) {
      // A header pair: ["authorization", "Bearer …"].
      if (value.length === 2 && typeof value[0] === "string" && secret(value[0])) {
        return value[1] === REDACTED ? value : [value[0], REDACTED];
      }
      let copy: unknown[] | undefined;
      value.forEach((item, i) => {
        const next = walk(item, depth + 1);
        if (next !== item) (copy ??= [...value])[i] = next;
      });
      return copy ?? value;
    }
    if (!isPlainObject(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = value[key];
      const next = secret(key) ? REDACTED : walk(item, depth + 1);
      if (next !== item) (copy ??= { ...value })[key] = next;
    }
    return copy ?? value;
  };
  return (value) => walk(value, 0);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

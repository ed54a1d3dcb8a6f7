/**
 * `config_summary` of `engine::registered-triggers::list`: a trigger's config
 * in a few words, as the reference lists it. The built-in types say what
 * matters (`POST /orders/:id`, `scope "orders", key "42"`, `level warn`);
 * any other config is shown as its top-level `key=value` pairs, cut at
 * {@link SUMMARY_MAX} characters. Pure.
 *
 * @module
 */

/** The longest summary, in characters (a cut one ends with `…`). */
export const SUMMARY_MAX = 80;

type Config = Record<string, unknown>;
type Summarize = (config: Config) => string | undefined;

const str = (v: unknown): string | undefined => typeof v === "string" && v !== "" ? v : undefined;

const BUILT_IN: Record<string, Summarize> = {
  http: (c) => {
    const path = str(c.api_path);
    if (path === undefined) return undefined;
    const method = str(c.http_method)?.toUpperCase() ?? "GET";
    return `${method} ${path.startsWith("/") ? path : `/${path}`}`;
  },
  state: (c) => {
    const parts = [];
    if (str(c.scope)) parts.push(`scope ${JSON.stringify(c.scope)}`);
    if (str(c.key)) parts.push(`key ${JSON.stringify(c.key)}`);
    return parts.length > 0 ? parts.join(", ") : "every change";
  },
  log: (c) => `level ${str(c.level) ?? "all"}`,
  "engine::functions-available": (c) =>
    c.include_internal === true ? "all functions, internal ones too" : "all functions",
  "engine::workers-available": () => "every worker",
};

/** A short, human-readable summary of trigger `config` of type `type`. */
export function configSummary(type: string, config: unknown): string {
  const own = BUILT_IN[type];
  const summary = own && isMap(config) ? own(config) : undefined;
  return cut(summary ?? generic(config));
}

function generic(config: unknown): string {
  if (config === undefined || config === null) return "no config";
  if (typeof config === "string") return config;
  if (!isMap(config)) return JSON.stringify(config) ?? String(config);
  const pairs = Object.entries(config).filter(([, v]) => v !== undefined);
  if (pairs.length === 0) return "no config";
  return pairs.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

function cut(text: string): string {
  const chars = [...text.replace(/\s+/g, " ")]; // code points: a cut never splits a character
  return chars.length <= SUMMARY_MAX
    ? chars.join("")
    : `${chars.slice(0, SUMMARY_MAX - 1).join("")}…`;
}

function isMap(value: unknown): value is Config {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * CORS by `cors.allowed_origins` and `cors.allowed_methods`. Only a real
 * preflight (an `OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * is answered here; any other `OPTIONS` is routed like every method. With
 * `cors.allow_credentials`, the allowed origins (never `*`) are also told
 * they may send cookies (`Access-Control-Allow-Credentials: true`). The
 * server does not enforce CORS (browsers do): a request from an origin that
 * is not allowed is still served, its reply just carries no allow headers.
 *
 * @module
 */
import { type CorsConfig, HTTP_METHODS } from "./config.ts";

/** How long a browser may cache a preflight answer, in seconds. */
const MAX_AGE = "600";

export class Cors {
  readonly #any: boolean;
  readonly #exact: ReadonlySet<string>;
  readonly #hosts: ReadonlySet<string>;
  readonly #methods: string;
  readonly #credentials: boolean;

  constructor(config: CorsConfig) {
    this.#any = config.allowed_origins.includes("*");
    this.#credentials = config.allow_credentials === true;
    this.#exact = new Set(config.allowed_origins.filter((o) => o.includes("://")));
    this.#hosts = new Set(config.allowed_origins.filter((o) => o !== "*" && !o.includes("://")));
    const methods = config.allowed_methods.length > 0 ? config.allowed_methods : HTTP_METHODS;
    this.#methods = [...new Set(methods)].join(", ");
  }

  /** Whether a browser at `origin` may read the replies. */
  allows(origin: string): boolean {
    if (this.#any || this.#exact.has(origin)) return true;
    if (this.#hosts.size === 0) return false;
    const host = hostnameOf(origin);
    return host !== undefined && this.#hosts.has(host);
  }

  /**
   * Adds the allow headers for a request from `origin` (none when it has no
   * `Origin`, or when the function set its own). Unless any origin is
   * allowed, the reply depends on `Origin`, so it says `Vary: Origin`, also
   * to a request without one: a shared cache would otherwise hand that reply
   * (without allow headers) to a browser's request from an allowed origin.
   */
  decorate(headers: Headers, origin: string | null): void {
    if (headers.has("access-control-allow-origin")) return;
    if (this.#any) {
      if (origin !== null) headers.set("access-control-allow-origin", "*");
      return;
    }
    varyOnOrigin(headers);
    if (origin !== null && this.allows(origin)) {
      headers.set("access-control-allow-origin", origin);
      if (this.#credentials) headers.set("access-control-allow-credentials", "true");
    }
  }

  /** The answer to a preflight request. */
  preflight(request: Request): Response {
    const headers = new Headers({
      vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    });
    const origin = request.headers.get("origin")!;
    if (this.allows(origin)) {
      headers.set("access-control-allow-origin", this.#any ? "*" : origin);
      headers.set("access-control-allow-methods", this.#methods);
      const asked = request.headers.get("access-control-request-headers");
      if (asked) headers.set("access-control-allow-headers", asked);
      headers.set("access-control-max-age", MAX_AGE);
      if (this.#credentials) headers.set("access-control-allow-credentials", "true");
    }
    return new Response(null, { status: 204, headers });
  }
}

/** Adds `Origin` to `headers`' `Vary`, unless it is listed there already or is `*`. */
function varyOnOrigin(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary === null) return headers.set("vary", "Origin");
  const listed = vary.split(",").map((name) => name.trim().toLowerCase());
  if (!listed.includes("origin") && !listed.includes("*")) headers.append("vary", "Origin");
}

/** Whether `request` is a CORS preflight rather than an ordinary `OPTIONS`. */
export function isPreflight(request: Request): boolean {
  return request.method === "OPTIONS" && request.headers.has("origin") &&
    request.headers.has("access-control-request-method");
}

/** The lower-cased host name of an origin such as `http://[::1]:8080`. */
export function hostnameOf(origin: string): string | undefined {
  const start = origin.indexOf("://");
  if (start < 0) return undefined;
  const hostPort = origin.slice(start + 3);
  if (hostPort.startsWith("[")) {
    const end = hostPort.indexOf("]");
    return end < 0 ? undefined : hostPort.slice(0, end + 1).toLowerCase();
  }
  const colon = hostPort.indexOf(":");
  return (colon < 0 ? hostPort : hostPort.slice(0, colon)).toLowerCase();
}

/**
 * The `config:` block of the `engine-http` worker entry: a strict zod schema
 * (an unknown or misspelled key is an error, as in the reference) with the
 * defaults the worker runs with when a field is left out.
 *
 * @module
 */
import { z } from "zod";
import { checkFunctionId } from "../../engine/protocol/ids.ts";

/** The methods an `http` trigger can bind, in the order `Allow` lists them. */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Whether `value` (already upper-cased) is one of {@link HTTP_METHODS}. */
export function isHttpMethod(value: string): value is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(value);
}

const Method = z.string().transform((value, ctx) => {
  const upper = value.toUpperCase();
  if (isHttpMethod(upper)) return upper;
  ctx.addIssue({
    code: "custom",
    message: `Unsupported HTTP method ${JSON.stringify(value)}: use one of ${
      HTTP_METHODS.join(", ")
    }`,
  });
  return z.NEVER;
});

/** `*`, a bare host (`localhost`, any scheme and port), or an exact origin. */
const Origin = z.string().transform((value, ctx) => {
  const normalized = normalizeOriginPattern(value);
  if (normalized !== undefined) return normalized;
  ctx.addIssue({
    code: "custom",
    message: `Invalid origin ${JSON.stringify(value)}: ` +
      'use "*", a bare host such as "localhost", or an origin such as "https://example.com:8443"',
  });
  return z.NEVER;
});

const Cors = z.strictObject({
  /** Empty allows no cross-origin caller; `*` allows every one. */
  allowed_origins: z.array(Origin).default([]),
  /** Empty means every method in {@link HTTP_METHODS}. */
  allowed_methods: z.array(Method).default([]),
  /** `true`: browsers may send cookies and credentials from the allowed origins, and read the replies. */
  allow_credentials: z.boolean().optional(),
}).superRefine((cors, ctx) => {
  if (cors.allow_credentials === true && cors.allowed_origins.includes("*")) {
    ctx.addIssue({
      code: "custom",
      path: ["allow_credentials"],
      message: 'allow_credentials cannot be used with allowed_origins "*" ' +
        "(every site could then act with its visitors' cookies): list the origins instead",
    });
  }
});

/** One global middleware, run before every route's condition and handler. */
const Middleware = z.strictObject({
  function_id: z.string().min(1).superRefine((id, ctx) => {
    const problem = checkFunctionId(id);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }),
  phase: z.literal("preHandler").default("preHandler"),
  /** Lower runs first; equal priorities keep config order. */
  priority: z.number().default(0),
});

const Milliseconds = z.int().positive();

export const HttpConfigSchema = z.strictObject({
  port: z.int().min(0).max(65_535).default(3111),
  host: z.string().min(1).default("127.0.0.1"),
  /** Bound on a whole request, from arrival (queueing included) to the reply. */
  default_timeout: Milliseconds.default(30_000),
  /** Requests in progress across the whole server; more wait for a slot. */
  concurrency_request_limit: z.int().min(1).default(1024),
  /** Absent: no CORS headers and no preflight handling. */
  cors: Cors.optional(),
  middleware: z.array(Middleware).default([]),
  /** Largest request body in bytes; a larger one gets 413. */
  body_limit: z.int().positive().default(1024 * 1024),
  /** Bound on each middleware call. */
  middleware_timeout: Milliseconds.default(5_000),
});

export type HttpConfig = z.infer<typeof HttpConfigSchema>;
export type CorsConfig = NonNullable<HttpConfig["cors"]>;
export type MiddlewareEntry = HttpConfig["middleware"][number];

/** The configuration `engine worker add engine-http` writes: the reference's. */
export const DEFAULT_CONFIG = {
  port: 3111,
  host: "127.0.0.1",
  default_timeout: 30_000,
  concurrency_request_limit: 1024,
  cors: {
    allowed_origins: ["localhost"],
    allowed_methods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
  },
};

/** Validates a raw config block; throws a `ZodError` whose issues name the field. */
export function parseHttpConfig(raw: unknown): HttpConfig {
  return HttpConfigSchema.parse(raw ?? {});
}

const BARE_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/** `*`, a lower-cased bare host, or the origin as browsers send it; `undefined` if none. */
function normalizeOriginPattern(value: string): string | undefined {
  if (value === "*") return value;
  if (BARE_HOST.test(value)) return value.toLowerCase();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const onlyOrigin = url.pathname === "/" && url.search === "" && url.hash === "" &&
    url.username === "" && url.password === "";
  return onlyOrigin && url.host !== "" ? `${url.protocol}//${url.host}` : undefined;
}

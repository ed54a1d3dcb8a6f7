/**
 * Every reply the worker makes itself (as opposed to a function's response)
 * has one shape, `{"error": {"code", "message", "error_id"?}}` (the 422 of a
 * condition adds `"skipped": true`, as the reference's does). Inside, steps
 * throw {@link HttpError}; {@link errorReply} is the one place that turns any
 * failure into that reply, and the only place a 500 gets its `error_id` and
 * its log entry.
 *
 * @module
 */
import type { Logger } from "../../engine/api.ts";
import { randomHex } from "../../engine/observability/traceparent.ts";

/** The codes of replies the worker makes itself; a function's own error code passes through as is. */
export const Code = {
  NotFound: "NOT_FOUND",
  MethodNotAllowed: "METHOD_NOT_ALLOWED",
  InvalidBody: "INVALID_BODY",
  PayloadTooLarge: "PAYLOAD_TOO_LARGE",
  ConditionNotMet: "CONDITION_NOT_MET",
  InvalidResponse: "INVALID_RESPONSE",
  InternalError: "INTERNAL_ERROR",
  FunctionUnavailable: "FUNCTION_UNAVAILABLE",
  Overloaded: "OVERLOADED",
  ShuttingDown: "SHUTTING_DOWN",
  RequestTimeout: "REQUEST_TIMEOUT",
  MiddlewareTimeout: "MIDDLEWARE_TIMEOUT",
  ClientClosed: "CLIENT_CLOSED",
  InvalidHost: "INVALID_HOST",
  UnsupportedEncoding: "UNSUPPORTED_ENCODING",
} as const;

export interface HttpErrorOptions {
  headers?: Record<string, string>;
  /** For the log of a 500: the function involved, its stack trace, the original error. */
  detail?: Record<string, unknown>;
  /** More top-level fields of the reply's body, beside `error` (the 422's `skipped: true`). */
  fields?: Record<string, unknown>;
}

/** A request that ends in an error reply with `status`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string> | undefined;
  readonly detail: Record<string, unknown> | undefined;
  readonly fields: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, options: HttpErrorOptions = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.headers = options.headers;
    this.detail = options.detail;
    this.fields = options.fields;
  }
}

/**
 * The end of a request whose client closed its connection `when`: 499, as
 * nginx records it. Nobody reads the reply; the request's span shows it.
 */
export function clientClosed(when: string): HttpError {
  return new HttpError(499, Code.ClientClosed, `The client closed the connection ${when}`);
}

/** Seconds a client is told to wait after a 503. */
const RETRY_AFTER_SECONDS = "1";

/** Where {@link errorReply} adds to. */
export interface ErrorReplyOptions {
  /** Headers the reply carries besides its own (CORS). */
  headers?: Headers;
  /** The trace of the request, named in the log entry of a 500 so it links to the trace. */
  traceId?: string | undefined;
}

/** The reply for `error`; a 500 or 502 gets an `error_id`, written to `log` with the error. */
export function errorReply(error: unknown, log: Logger, options: ErrorReplyOptions = {}): Response {
  const known = error instanceof HttpError ? error : undefined;
  const status = known?.status ?? 500;
  const code = known?.code ?? Code.InternalError;
  const body: { code: string; message: string; error_id?: string } = {
    code,
    message: known?.message ?? "Internal server error",
  };
  if (status === 500 || status === 502) {
    body.error_id = newErrorId();
    // The entry carries the request's trace and the function, so the console links them.
    const fields: Record<string, unknown> = {};
    if (options.traceId !== undefined) fields.traceId = options.traceId;
    const fn = known?.detail?.function_id;
    if (typeof fn === "string") fields.function = fn;
    const entryLog = Object.keys(fields).length > 0 ? log.child(fields) : log;
    entryLog.error(`HTTP request failed with error_id ${body.error_id}: ${code}: ${body.message}`, {
      error_id: body.error_id,
      code,
      ...(known ? known.detail : { error: describeError(error) }),
    });
  }
  const headers = options.headers ?? new Headers();
  headers.set("content-type", "application/json");
  // Every 503 this worker gives is temporary (starting, stopping, overloaded): say when to retry.
  if (status === 503) headers.set("retry-after", RETRY_AFTER_SECONDS);
  if (known?.headers) {
    for (const [name, value] of Object.entries(known.headers)) headers.set(name, value);
  }
  return new Response(JSON.stringify({ error: body, ...known?.fields }), { status, headers });
}

/** 16 random lower-case hex digits. */
export function newErrorId(): string {
  return randomHex(8);
}

function describeError(error: unknown): Record<string, unknown> {
  return error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { value: String(error) };
}

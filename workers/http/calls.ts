/**
 * One function call on behalf of an HTTP request (a middleware, a condition
 * or the handler), bounded by the time the request has left and by the
 * worker's stop, and its failure turned into the {@link HttpError} the
 * request ends with.
 *
 * @module
 */
import { type CallOptions, type ChannelApi, isEngineFailure } from "../../engine/api.ts";
import { Code, HttpError } from "./errors.ts";
import type { RequestScope } from "./scope.ts";

export type { RequestScope } from "./scope.ts";

/** What the pipeline needs of the engine: an `EngineApi` fits. */
export interface Invoker {
  call(functionId: string, payload: unknown, options?: CallOptions): Promise<unknown>;
  hasFunction(functionId: string): boolean;
  /** The engine's `max_frame_bytes`, when known: no larger call or result passes. */
  maxFrameBytes?: number;
  /** Data channels: with them, a handler's request carries `request_body` and `response` refs. */
  channels?: ChannelApi;
}

export type Role = "Middleware" | "Condition" | "Function";

export interface CallRequest {
  role: Role;
  functionId: string;
  payload: unknown;
  metadata?: unknown;
  /** A bound shorter than the request's own (`middleware_timeout`), in ms. */
  timeoutMs?: number;
}

/**
 * Calls a function for the request in `scope`; every failure is an
 * {@link HttpError}. The time bounds are the invoker's to enforce (the
 * engine's contract): `timeoutMs`, the time the request has left or a
 * shorter own bound, fails the call with `invocation_timeout`, and the
 * worker's stop signal fails it at once. No signal or timer is made per call.
 */
export async function callFunction(
  invoker: Invoker,
  scope: RequestScope,
  call: CallRequest,
): Promise<unknown> {
  if (!invoker.hasFunction(call.functionId)) throw unavailable(call);
  if (scope.ended) {
    throw requestAborted(scope, `before ${describeCall(call)} was called`);
  }
  const remaining = Math.max(1, Math.ceil(scope.expiresAt - performance.now()));
  const own = call.timeoutMs !== undefined && call.timeoutMs < remaining;
  const options: CallOptions = {
    timeoutMs: own ? call.timeoutMs! : remaining,
    traceparent: scope.traceparent,
    signal: scope.stopping,
  };
  if (scope.baggage !== undefined) options.baggage = scope.baggage;
  if (call.metadata !== undefined) options.metadata = call.metadata;
  try {
    return await invoker.call(call.functionId, call.payload, options);
  } catch (error) {
    if (scope.ended || scope.stopping.aborted) throw requestAborted(scope, call);
    if (codeOf(error) === "invocation_timeout" && isEngineFailure(error)) {
      throw own ? middlewareTimeout(call) : requestAborted(scope, call);
    }
    throw callFailed(call, error);
  }
}

/**
 * The error a request ends with when its scope ended: the worker stopping, or
 * `default_timeout` running out `during` a step, which the message names: the
 * function call in progress, or what the request was doing instead (e.g.
 * `"reading the request body"`).
 */
export function requestAborted(scope: RequestScope, during: CallRequest | string): HttpError {
  if (scope.stopping.aborted) {
    return new HttpError(503, Code.ShuttingDown, "The HTTP worker is stopping");
  }
  const step = typeof during === "string" ? during : `${describeCall(during)} did not answer`;
  return new HttpError(504, Code.RequestTimeout, `Request timed out: ${step}`);
}

/** `function "orders::get"`, `middleware "auth::key"`, … */
function describeCall(call: CallRequest): string {
  return `${call.role.toLowerCase()} ${JSON.stringify(call.functionId)}`;
}

function middlewareTimeout(call: CallRequest): HttpError {
  return new HttpError(
    504,
    Code.MiddlewareTimeout,
    `${call.role} ${JSON.stringify(call.functionId)} did not answer within ${call.timeoutMs} ms`,
  );
}

function unavailable(call: CallRequest): HttpError {
  return new HttpError(
    503,
    Code.FunctionUnavailable,
    `${call.role} ${
      JSON.stringify(call.functionId)
    } is not registered: its worker may still be starting`,
  );
}

/**
 * Failures that are not the function's own, told by the engine's mark on the
 * errors it makes when it ends a call itself (`isEngineFailure`), never by
 * their code or message, which a function can copy: its worker went away
 * before answering, or its result was over the engine's `max_frame_bytes`
 * (502, as a gateway whose upstream failed or answered what it cannot pass
 * on), or no replica can take the call now (503, to be retried). Anything else is the
 * function's: 500, including these codes when they came from a call the
 * function made, or when it wrote them itself.
 */
const STATUS_OF: Record<string, number> = {
  invocation_stopped: 502,
  overloaded: 503,
  // Its worker is draining and no other replica could take the call: it never ran.
  shutdown: 503,
  frame_too_large: 502,
};

function callFailed(call: CallRequest, error: unknown): HttpError {
  const code = codeOf(error);
  if (code === undefined) {
    // Not a call's error (those all have a code): a bug below the call, whose text is for the
    // log, not the client ("Maximum call stack size exceeded", a TypeError's property name).
    const detail: Record<string, unknown> = {
      role: call.role.toLowerCase(),
      function_id: call.functionId,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
    if (typeof (error as Error | null)?.stack === "string") {
      detail.stacktrace = (error as Error).stack;
    }
    return new HttpError(
      500,
      Code.InternalError,
      `${call.role} ${JSON.stringify(call.functionId)} could not be called: internal error`,
      { detail },
    );
  }
  const engines = isEngineFailure(error);
  if (code === "function_not_found" && engines) return unavailable(call);
  let message = error instanceof Error ? error.message : String(error);
  if (code === "frame_too_large" && engines) {
    // The engine refused the function's result: say which limit, and where it is set.
    message = `${call.role} ${
      JSON.stringify(call.functionId)
    } answered with a result larger than the engine's max_frame_bytes (set in the engine config): ${message}`;
  }
  const detail: Record<string, unknown> = {
    role: call.role.toLowerCase(),
    function_id: call.functionId,
  };
  const stacktrace = (error as { stacktrace?: unknown }).stacktrace ??
    (error as { stack?: unknown }).stack;
  if (typeof stacktrace === "string") detail.stacktrace = stacktrace;
  const status = engines ? STATUS_OF[code ?? ""] ?? 500 : 500;
  return new HttpError(status, code, message, { detail });
}

/** The `code` of a `CallError` (or anything shaped like one). */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

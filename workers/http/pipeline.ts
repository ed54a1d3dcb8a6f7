/**
 * Steps 2 to 7 of a request, in the seed's order: global middleware, the
 * condition, per-route middleware, the body, the handler, its response. The
 * body is parsed at most once, at the first step that needs it (the
 * condition, else the handler), so a request turned away by middleware never
 * has its body read.
 *
 * @module
 */
import type { Logger } from "../../engine/api.ts";
import type { ChannelRef } from "../../engine/api.ts";
import { bodyLimit, parseBody, readBytes } from "./body.ts";
import { decodeContent } from "./encoding.ts";
import { callFunction, type Invoker, requestAborted, type RequestScope } from "./calls.ts";
import { clientClosed, Code, HttpError } from "./errors.ts";
import type { Limiter } from "./limiter.ts";
import { type Context, interpretMiddlewareResult, type MiddlewareRequest } from "./middleware.ts";
import { type RequestIds, STREAMED } from "./request_channels.ts";
import { toHttpResponse } from "./response.ts";
import type { Route } from "./routes.ts";

export interface PipelineOptions {
  invoker: Invoker;
  log: Logger;
  /** Global middleware function ids, already in priority order. */
  globalMiddleware: readonly string[];
  middlewareTimeout: number;
  bodyLimit: number;
  /** Present when the invoker offers channels: the handler then gets `request_body` and `response`. */
  requestIds?: RequestIds;
  /** The longest pause between two chunks of a streamed response (`default_timeout`). */
  streamIdleMs?: number;
}

/** A matched request on its way through the pipeline. */
export interface Incoming {
  request: Request;
  route: Route;
  params: Record<string, string>;
  /** The request path as sent (still percent-encoded). */
  path: string;
  /** The query string without its `?`. */
  query: string;
  scope: RequestScope;
  /** Where the request's concurrency slot was taken. */
  limiter: Limiter;
  /**
   * Set by the pipeline when it returns a streamed body, which then holds the
   * slot and gives it back to `limiter` when it ends; otherwise the caller
   * gives it back once the pipeline has returned (or thrown).
   */
  slotKept: boolean;
}

/** The request object a condition and the handler receive (the reference's fields, plus `context`). */
export interface HandlerRequest extends MiddlewareRequest {
  path: string;
  body: unknown;
  trigger: { type: "http"; path: string; method: string };
  context: Context;
  /** The raw request bytes, to read (the handler's request only). */
  request_body?: ChannelRef;
  /** Where the handler may stream its response instead of returning it. */
  response?: ChannelRef;
}

/** Runs the request through middleware, condition and handler; failures throw {@link HttpError}. */
export async function runPipeline(options: PipelineOptions, incoming: Incoming): Promise<Response> {
  const { route, scope } = incoming;
  const request: MiddlewareRequest = {
    path_params: incoming.params,
    query_params: incoming.query === ""
      ? {}
      : Object.fromEntries(new URLSearchParams(incoming.query)),
    headers: headersOf(incoming.request.headers),
    method: incoming.request.method,
  };
  let context: Context = {};

  for (const functionId of options.globalMiddleware) {
    const outcome = await runMiddleware(options, incoming, functionId, request, context);
    if (outcome.kind === "respond") return outcome.response;
    context = outcome.context;
  }

  let handlerRequest: HandlerRequest | undefined;
  let bytes: Uint8Array | null = null;
  if (route.conditionFunctionId !== undefined) {
    [handlerRequest, bytes] = await withBody(options, incoming, request, context);
    const result = await callFunction(options.invoker, scope, {
      role: "Condition",
      functionId: route.conditionFunctionId,
      payload: handlerRequest,
    });
    if (!conditionPassed(route.conditionFunctionId, result, options.log)) {
      // `skipped: true`, as the reference says it: the handler was skipped, not failed.
      throw new HttpError(422, Code.ConditionNotMet, "Request condition not met", {
        fields: { skipped: true },
      });
    }
  }

  for (const functionId of route.middlewareFunctionIds) {
    const outcome = await runMiddleware(options, incoming, functionId, request, context);
    if (outcome.kind === "respond") return outcome.response;
    context = outcome.context;
  }

  if (handlerRequest === undefined) {
    [handlerRequest, bytes] = await withBody(options, incoming, request, context);
  } else handlerRequest.context = context;

  if (options.requestIds === undefined) {
    return mapResult(route.functionId, await callHandler(options, incoming, handlerRequest));
  }
  const channels = options.requestIds.open(bytes);
  const refs = channels.refs();
  handlerRequest.request_body = refs.request_body;
  handlerRequest.response = refs.response;
  let streaming = false;
  try {
    const result = await channels.race(callHandler(options, incoming, handlerRequest));
    if (result !== STREAMED && result !== undefined && result !== null) {
      return mapResult(route.functionId, result);
    }
    if (result !== STREAMED) {
      // No value: the handler answers on its response channel, which it opens at once (the
      // iii-sdk's http() helper opens it right after returning); one that does not within
      // the grace returned no response, a 500 as for any invalid one.
      const left = scope.expiresAt - performance.now() - 50;
      const grace = Math.max(0, Math.min(NO_RESPONSE_GRACE_MS, left));
      const opened = await scope.bound(channels.whenResponseOpened(grace))
        .catch(() => true); // the request ended meanwhile: told below
      if (!opened) return mapResult(route.functionId, result);
      // It streams: default_timeout bounds the wait for its first chunk (or its close).
      try {
        await scope.bound(channels.whenCommitted());
      } catch {
        throw requestAborted(
          scope,
          `function ${
            JSON.stringify(route.functionId)
          } returned no response and opened its response channel, but neither streamed on it nor closed it`,
        );
      }
    }
    // A streamed body keeps the request's slot until it ends, so concurrency_request_limit
    // bounds open streams too (each holds a channel, the writer's socket and the client's).
    const response = channels.response!.toResponse(
      route.functionId,
      options.log,
      () => {
        channels.release("the response ended");
        incoming.limiter.release();
      },
      {
        idleMs: options.streamIdleMs,
        stopping: scope.stopping,
        head: incoming.request.method === "HEAD",
      },
    );
    if (response.body !== null) streaming = incoming.slotKept = true;
    return response;
  } finally {
    if (!streaming) channels.release("the request ended");
  }
}

function callHandler(
  options: PipelineOptions,
  incoming: Incoming,
  handlerRequest: HandlerRequest,
): Promise<unknown> {
  return callFunction(options.invoker, incoming.scope, {
    role: "Function",
    functionId: incoming.route.functionId,
    payload: handlerRequest,
    metadata: incoming.route.metadata,
  });
}

/**
 * How long a handler that returned no value has to open its response ref
 * before it is taken as having returned no response (less when less of
 * `default_timeout` is left).
 */
export const NO_RESPONSE_GRACE_MS = 1000;

function mapResult(functionId: string, result: unknown): Response {
  const mapped = toHttpResponse(result);
  if (mapped.kind === "invalid") {
    throw new HttpError(
      500,
      Code.InvalidResponse,
      `Function ${JSON.stringify(functionId)} ${mapped.reason}`,
      {
        detail: { role: "function", function_id: functionId },
      },
    );
  }
  return mapped.response;
}

async function runMiddleware(
  options: PipelineOptions,
  incoming: Incoming,
  functionId: string,
  request: MiddlewareRequest,
  context: Context,
) {
  const result = await callFunction(options.invoker, incoming.scope, {
    role: "Middleware",
    functionId,
    payload: { phase: "preHandler", request, context },
    timeoutMs: options.middlewareTimeout,
  });
  return interpretMiddlewareResult(functionId, result, context, options.log);
}

async function withBody(
  options: PipelineOptions,
  incoming: Incoming,
  request: MiddlewareRequest,
  context: Context,
): Promise<[HandlerRequest, Uint8Array | null]> {
  let body: unknown;
  let bytes: Uint8Array | null;
  try {
    const limit = bodyLimit(options.bodyLimit, options.invoker.maxFrameBytes);
    bytes = await incoming.scope.bound(readBytes(incoming.request, limit));
    const headers = incoming.request.headers;
    const coding = headers.get("content-encoding");
    const content = bytes === null || coding === null
      ? bytes
      : await incoming.scope.bound(decodeContent(bytes, coding, limit));
    body = content === null ? null : parseBody(content, headers.get("content-type"));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (incoming.scope.ended) throw requestAborted(incoming.scope, "reading the request body");
    // The stream failed: the client went away mid-body (Deno's BadResource: the connection is
    // gone), or broke its framing (a bad chunk). Not `request.signal`: reading it makes Deno
    // print a warning about its legacy abort behaviour.
    if ((error as Error | null)?.name === "BadResource") {
      throw clientClosed("while sending the request body");
    }
    throw new HttpError(
      400,
      Code.InvalidBody,
      `Request body could not be read: it broke off (${(error as Error)?.message ?? error})`,
    );
  }
  return [{
    path_params: request.path_params,
    query_params: request.query_params,
    headers: request.headers,
    method: request.method,
    path: incoming.path,
    body,
    trigger: { type: "http", path: incoming.route.pattern, method: incoming.route.method },
    context,
  }, bytes];
}

/**
 * The headers as a map, as `Object.fromEntries(headers)` makes it (sorted
 * lower-case names, repeated values joined, the last `set-cookie`), at a
 * sixth of the cost: `forEach` skips the iterator objects. Deno reads each
 * byte of a value as one character (Latin-1); a value whose bytes are UTF-8
 * (`x-name: Jürgen`, as curl and most clients send it) is decoded as UTF-8.
 */
function headersOf(headers: Headers): Record<string, string> {
  const map: Record<string, string> = {};
  headers.forEach((value, name) => {
    map[name] = NOT_ASCII.test(value) ? fromUtf8(value) : value;
  });
  return map;
}

const NOT_ASCII = /[^\0-\x7f]/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `value`'s bytes (one per character) read as UTF-8; `value` itself when they are not UTF-8. */
function fromUtf8(value: string): string {
  try {
    return strictUtf8.decode(Uint8Array.from(value, (c) => c.charCodeAt(0)));
  } catch {
    return value;
  }
}

/** `false` and `{ok: false}` fail; `true` and `{ok: true}` pass; anything else passes with a warning. */
function conditionPassed(functionId: string, result: unknown, log: Logger): boolean {
  if (result === false) return false;
  if (result === true) return true;
  const ok = result !== null && typeof result === "object"
    ? (result as { ok?: unknown }).ok
    : undefined;
  if (typeof ok === "boolean") return ok;
  log.warn(
    `Condition ${JSON.stringify(functionId)} returned neither true nor false: treated as passed`,
    {
      function_id: functionId,
    },
  );
  return true;
}

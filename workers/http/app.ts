/**
 * The Hono app the server runs: CORS preflight, route match (404/405), a
 * concurrency slot, then the pipeline. The app itself never changes; the
 * route matcher it reads is replaced whole when triggers change. Every
 * failure becomes the worker's error reply (`errorReply`).
 *
 * @module
 */
import { isHostHeader } from "../../engine/host.ts";
import { Hono } from "hono";
import { LinearRouter } from "hono/router/linear-router";
import type { Logger, SpanRecord } from "../../engine/api.ts";
import { requestAborted } from "./calls.ts";
import { type Cors, isPreflight } from "./cors.ts";
import { Code, errorReply, HttpError } from "./errors.ts";
import type { Limiter } from "./limiter.ts";
import type { Matcher } from "./matcher.ts";
import { type Incoming, type PipelineOptions, runPipeline } from "./pipeline.ts";
import { traceFor } from "./trace.ts";
import { type RequestFacts, requestSpan } from "./request_span.ts";
import { type RequestScope, Scopes } from "./scope.ts";
import { isUnsized } from "./streamed_response.ts";

export interface AppOptions {
  /** The current matcher; called once per request. */
  matcher(): Matcher;
  limiter: Limiter;
  /** Absent: no CORS handling at all. */
  cors?: Cors | undefined;
  pipeline: PipelineOptions;
  /** `default_timeout`, in ms. */
  defaultTimeout: number;
  /** Aborted when the worker stops: requests in progress end at once. */
  stopping: AbortSignal;
  log: Logger;
  /** Receives the span of each routed request (the engine's trace store). */
  recordSpan?: ((span: SpanRecord) => void) | undefined;
}

/** Builds the app; `app.request()` drives it in tests, `Deno.serve` in production. */
export function createApp(options: AppOptions): Hono {
  const { cors, limiter, log } = options;
  // One catch-all route: the linear router hands it over without matching
  // the path (the default one runs a regular expression per request).
  const app = new Hono({ router: new LinearRouter() });
  const scopes = new Scopes(options.defaultTimeout, options.stopping);

  app.all("*", (c) => serve(c.req.raw));
  // Hono answers a HEAD with `new Response(null, <its GET reply>)`, which Deno sends with
  // `content-length: 0` unless it has a length: HEAD requests do not go through it.
  const dispatch = app.fetch;
  app.fetch = (request, ...rest) =>
    request.method === "HEAD" ? head(request) : dispatch(request, ...rest);

  const head = async (request: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await serve(request);
    } catch (error) {
      response = reply(error, request); // 404, 405
    }
    return await withoutBody(response);
  };

  const serve = async (request: Request): Promise<Response> => {
    checkHost(request.headers.get("host"));
    if (cors && isPreflight(request)) return cors.preflight(request);
    const arrived = performance.now();
    const { path, query } = splitUrl(request.url);
    const match = options.matcher().match(request.method, path);
    if (match.kind === "not_found") {
      throw new HttpError(
        404,
        Code.NotFound,
        `No route matches ${JSON.stringify(`${request.method} ${path}`)}`,
      );
    }
    if (match.kind === "method_not_allowed") {
      throw new HttpError(
        405,
        Code.MethodNotAllowed,
        `Method ${request.method} is not allowed for ${JSON.stringify(path)}: use ${
          match.allow.join(", ")
        }`,
        { headers: { allow: match.allow.join(", ") } },
      );
    }
    const trace = traceFor(request.headers.get("traceparent"));
    const scope = scopes.open(arrived, {
      traceparent: trace.traceparent,
      baggage: request.headers.get("baggage"),
    });
    const facts: RequestFacts = {
      method: request.method,
      route: match.route.pattern,
      path,
      trace,
      start: Date.now(),
    };
    let response: Response;
    try {
      if (!limiter.tryAcquire()) await waitForSlot(limiter, scope);
      const incoming: Incoming = {
        request,
        route: match.route,
        params: match.params,
        path,
        query,
        scope,
        limiter,
        slotKept: false,
      };
      try {
        response = await runPipeline(options.pipeline, incoming);
      } finally {
        // A streamed body keeps the slot until it ends (see `Incoming.slotKept`).
        if (!incoming.slotKept) limiter.release();
      }
    } catch (error) {
      record(options, facts, { error });
      return reply(error, request, trace.traceId);
    } finally {
      scopes.close(scope);
    }
    record(options, facts, { response });
    cors?.decorate(response.headers, request.headers.get("origin"));
    return response;
  };

  /** The error reply to `request`; `traceId` is the trace of a routed request, for its log entry. */
  const reply = (error: unknown, request: Request, traceId?: string): Response => {
    const headers = new Headers();
    cors?.decorate(headers, request.headers.get("origin"));
    return errorReply(error, log, { headers, traceId });
  };
  // What fails before a request is routed (404, 405).
  app.onError((error, c) => reply(error, c.req.raw));

  return app;
}

function record(
  options: AppOptions,
  facts: RequestFacts,
  outcome: { response: Response } | { error: unknown },
): void {
  options.recordSpan?.(requestSpan(facts, outcome));
}

async function waitForSlot(limiter: Limiter, scope: RequestScope): Promise<void> {
  let outcome;
  try {
    outcome = await limiter.acquire(scope.signal);
  } catch {
    throw requestAborted(
      scope,
      `waiting for a free request slot (concurrency_request_limit ${limiter.limit})`,
    );
  }
  if (outcome === "queue_full") {
    throw new HttpError(
      503,
      Code.Overloaded,
      `Too many requests: ${limiter.limit} in progress and ${limiter.waiting} waiting`,
    );
  }
}

/**
 * The reply to a `HEAD`: `response`'s status and headers with no body, and
 * the `Content-Length` its body has (Deno sends a reply without a body as
 * length 0), or none for a streamed body: Deno sends no length for a stream,
 * and does not read it for a `HEAD`.
 */
async function withoutBody(response: Response): Promise<Response> {
  if (isUnsized(response)) return new Response(emptyStream(), response);
  if (response.body === null) return response;
  const headers = new Headers(response.headers);
  if (!headers.has("content-length")) {
    headers.set("content-length", String((await response.arrayBuffer()).byteLength));
  } else await response.body.cancel();
  return new Response(null, { status: response.status, statusText: response.statusText, headers });
}

/** A body that is a stream (an empty one), so that Deno sends no length. */
function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

/**
 * Refuses a `Host` header that is not a host (a server must, RFC 9112 §3.2): 400. Deno builds a
 * request's URL from it, so a `/` or `?` in it would change the path {@link splitUrl} reads.
 */
function checkHost(host: string | null): void {
  if (host === null || isHostHeader(host)) return;
  const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
  throw new HttpError(
    400,
    Code.InvalidHost,
    `Host header ${JSON.stringify(shown)} is not a host name or address with an optional port`,
  );
}

/** The raw path (still percent-encoded) and the query string of an absolute URL. */
export function splitUrl(url: string): { path: string; query: string } {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return { path: "/", query: "" };
  const hash = url.indexOf("#", start);
  const stop = hash < 0 ? url.length : hash;
  const mark = url.indexOf("?", start);
  if (mark < 0 || mark > stop) return { path: url.slice(start, stop), query: "" };
  return { path: url.slice(start, mark), query: url.slice(mark + 1, stop) };
}

/**
 * W3C trace context and the "current invocation" a handler runs in, carried
 * through `await`s with `AsyncLocalStorage` (works on Deno and Node).
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";

/** The parts of a W3C `traceparent` header. */
export interface TraceParent {
  version: string;
  traceId: string;
  spanId: string;
  flags: string;
}

/**
 * Parses `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`; `undefined`
 * for anything else (including all-zero ids). Like the engine, it accepts
 * upper-case hex and surrounding space, and returns the parts in lower case.
 *
 * @example
 * ```ts
 * const tp = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
 * console.log(tp?.traceId); // "0af7651916cd43dd8448eb211c80319c"
 * ```
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(
    value.trim().toLowerCase(),
  );
  if (!m) return undefined;
  const [, version, traceId, spanId, flags] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (version === "ff" || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { version, traceId, spanId, flags };
}

/** What the SDK knows about the invocation a piece of code runs in. */
export interface InvocationScope<W = unknown> {
  /** The worker that received the invocation. */
  worker: W;
  functionId: string;
  invocationId: string | undefined;
  traceparent: string | undefined;
  baggage: string | undefined;
}

const storage = new AsyncLocalStorage<InvocationScope>();

/** Runs `fn` with `scope` as the current invocation. */
export function runInScope<T>(scope: InvocationScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * The invocation the calling code runs in, or `undefined` outside a handler.
 *
 * @example
 * ```ts
 * console.log(currentScope()); // undefined (not inside a handler)
 * ```
 */
export function currentScope(): InvocationScope | undefined {
  return storage.getStore();
}

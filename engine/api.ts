/**
 * The in-process surface of the engine that built-in workers (`engine-http`,
 * `engine-state`, …) program against. A built-in worker is a peer like any
 * WebSocket worker: it registers functions and trigger types, and calls
 * functions through the same router, so nothing in the engine special-cases it.
 *
 * @module
 */

import type { ChannelApi } from "./channels/local.ts";

export type { ChannelApi, ChannelReadEnd, ChannelRef, ChannelWriteEnd } from "./channels/local.ts";

/** A structured failure of a call: the `ErrorBody` of the wire protocol. */
export interface ErrorBody {
  code: string;
  message: string;
  stacktrace?: string;
}

/** Everything a function handler learns about the call besides its payload. */
export interface InvocationContext {
  /** The id the handler was registered under. */
  functionId: string;
  /** The engine's id for this invocation. */
  invocationId: string;
  /** W3C trace context of the call, when the caller sent one. */
  traceparent?: string;
  baggage?: string;
  /** The invocation's side-channel metadata (a trigger's `metadata`). */
  metadata?: unknown;
  /** The worker id of the caller, when the caller is a worker. */
  callerWorkerId?: string;
  /**
   * Aborted when the call ends without this handler's answer: it timed out,
   * was stopped (its caller's own signal, the engine shutting down), or the
   * worker stops. On a time-out or stop, the reason is an `Error` with the
   * call's error message. A call whose caller disconnected runs on to its
   * answer or time-out.
   */
  signal: AbortSignal;
}

/** A function implemented inside the engine process. */
export type FunctionHandler = (
  payload: unknown,
  ctx: InvocationContext,
) => unknown | Promise<unknown>;

export interface FunctionOptions {
  description?: string;
  metadata?: Record<string, unknown>;
  request_format?: unknown;
  response_format?: unknown;
}

/** One registered trigger, as its trigger-type provider sees it. */
export interface TriggerBinding {
  id: string;
  type: string;
  functionId: string;
  config: unknown;
  metadata?: unknown;
  /** The worker that registered the trigger. */
  workerId: string;
}

/**
 * Implemented by whoever provides a trigger type. `registerTrigger` refuses a
 * binding by throwing; the error's message goes back to the registering
 * worker in a `triggerregistrationresult` frame.
 */
export interface TriggerTypeProvider {
  registerTrigger(binding: TriggerBinding): void | Promise<void>;
  unregisterTrigger(binding: TriggerBinding): void | Promise<void>;
}

/**
 * Thrown by {@link TriggerTypeProvider.registerTrigger} to refuse a binding
 * because another holds what it asks for (an HTTP route bound to another
 * function): the refusal's code is `trigger_taken`, and the engine offers the
 * binding again when a trigger of the type goes, so it takes effect once
 * what held it is gone.
 */
export class TriggerTakenError extends Error {
  readonly code = "trigger_taken";
  constructor(message: string) {
    super(message);
    this.name = "TriggerTakenError";
  }
}

/** JSON Schemas of a trigger type (as `registertriggertype` carries them), each optional. */
export interface TriggerTypeFormats {
  /** The config of a trigger of the type. */
  trigger_request_format?: unknown;
  /** The payload a trigger's function is called with. */
  call_request_format?: unknown;
  /** What a trigger's function answers, where the provider reads it (not in the reference). */
  call_response_format?: unknown;
}

export interface CallOptions {
  /** Engine-side time-out for this call; the engine default applies otherwise. */
  timeoutMs?: number;
  traceparent?: string;
  baggage?: string;
  metadata?: unknown;
  /** Aborting it fails the call with `invocation_stopped`. */
  signal?: AbortSignal;
  /**
   * `false`: the call is not recorded as a span; `"async"`: its span is
   * marked as a call the caller does not wait for (`engine.call.async`), as a
   * trigger's or a queue's delivery that continues the trace of its cause.
   */
  trace?: boolean | "async";
}

/** A trigger a built-in worker binds one of its functions to. */
export interface TriggerRequest {
  type: string;
  function_id: string;
  config: unknown;
  metadata?: unknown;
}

/** A span a built-in worker records itself (e.g. `engine-http`'s request span). */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** `http` for a request, … */
  kind: string;
  name: string;
  /** Milliseconds since the epoch. */
  start: number;
  durationMs: number;
  status: "ok" | "error";
  error?: ErrorBody;
  attributes?: Record<string, unknown>;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/** A log entry in the engine's one searchable log. */
export interface LogEntry {
  /** Milliseconds since the epoch. */
  time: number;
  level: LogLevel;
  message: string;
  /** Who wrote it: `engine`, a worker name, … */
  source: string;
  worker?: string;
  function?: string;
  traceId?: string;
  spanId?: string;
  data?: unknown;
}

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A logger whose entries carry these fields too. */
  child(fields: Partial<Omit<LogEntry, "time" | "level" | "message">>): Logger;
}

/** The engine as a built-in worker sees it. */
export interface EngineApi {
  /** Registers (or replaces) a function owned by this worker; returns its unregister. */
  registerFunction(id: string, handler: FunctionHandler, options?: FunctionOptions): () => void;
  /**
   * Provides a trigger type; triggers of that type are handed to `provider`.
   * `formats` (JSON Schemas) are listed by `engine::triggers::list/info`.
   */
  registerTriggerType(
    id: string,
    description: string,
    provider: TriggerTypeProvider,
    formats?: TriggerTypeFormats,
  ): () => void;
  /**
   * Calls a function anywhere in the system and resolves with its result.
   * Rejects with a {@link CallError} carrying the `ErrorBody`.
   */
  call(functionId: string, payload: unknown, options?: CallOptions): Promise<unknown>;
  /** Fire-and-forget call: no result, errors only logged. */
  callVoid(functionId: string, payload: unknown, options?: CallOptions): void;
  /** Whether some live worker has registered `functionId` right now. */
  hasFunction(functionId: string): boolean;
  /**
   * Resolves once none of this worker's handlers is running: a worker that
   * has unregistered its functions waits for it before closing what they use.
   */
  whenIdle(): Promise<void>;
  /** Binds one of this worker's functions to a trigger; returns its unregister. */
  registerTrigger(trigger: TriggerRequest): () => void;
  /** Adds a span to the engine's trace store, tagged with this worker's name. */
  recordSpan(span: SpanRecord): void;
  /** This worker's logger (entries tagged with the worker's name). */
  log: Logger;
  /** The folder relative paths in this worker's config resolve against. */
  baseDir: string;
  /**
   * The engine's `max_frame_bytes`: no worker can send it a frame larger,
   * so no call or result larger passes between workers.
   */
  maxFrameBytes?: number;
  /**
   * Data channels without a socket (see `channels/local.ts`): create one and
   * hand its refs to workers, or hold an end of one here. Absent where the
   * engine offers none.
   */
  channels?: ChannelApi;
}

const ENGINE_FAILURE = Symbol("engine failure");

/**
 * Marks `error` (an {@link ErrorBody} or a {@link CallError}) as the engine's
 * own failure of a call (`function_not_found` when nothing serves it, its
 * worker gone, its time-out, no replica able to take it), as opposed to the
 * called function's failure. Only the engine sets it, where it makes those
 * errors: a non-enumerable symbol, so no frame a worker sends can carry it,
 * and it is not passed on when a function rethrows the error it got.
 */
export function markEngineFailure<T extends object>(error: T): T {
  Object.defineProperty(error, ENGINE_FAILURE, { value: true });
  return error;
}

/** Whether `error` is the engine's own failure of the call it ended (see {@link markEngineFailure}). */
export function isEngineFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null &&
    (error as { [ENGINE_FAILURE]?: unknown })[ENGINE_FAILURE] === true;
}

/**
 * Thrown by {@link EngineApi.call} when the call fails; {@link isEngineFailure}
 * tells the engine's own failure of the call from the function's.
 */
export class CallError extends Error {
  readonly code: string;
  readonly stacktrace: string | undefined;
  constructor(body: ErrorBody) {
    super(body.message);
    this.name = "CallError";
    this.code = body.code;
    this.stacktrace = body.stacktrace;
    if (isEngineFailure(body)) markEngineFailure(this);
  }
  /** The body without the engine's mark: a function passing it on fails with it as its own. */
  toBody(): ErrorBody {
    return this.stacktrace === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, stacktrace: this.stacktrace };
  }
}

/** A running built-in worker. */
export interface RunningWorker {
  /** Stops serving and releases every resource; resolves when done. */
  stop(): Promise<void>;
  /** A short status for `engine::workers::list` and the console. */
  describe?(): Record<string, unknown>;
  /**
   * Takes a changed config while running, when it can (engine-http keeps its
   * listener when only its CORS, time-outs or middleware change); `false`
   * when only a restart applies it (a new port, say).
   */
  reconfigure?(config: unknown): boolean | Promise<boolean>;
}

/** A built-in worker: a name, its config schema and a start function. */
export interface BuiltinWorker<C = unknown> {
  name: string;
  description: string;
  /** Validates the `config:` block of its config entry (zod `parse`); throws a ZodError. */
  parseConfig(raw: unknown): C;
  /** The zod schema `parseConfig` checks against: a config error suggests its fields for a typo. */
  configSchema?: unknown;
  /** The config `worker add <name>` writes: the reference configuration. */
  defaultConfig: Record<string, unknown>;
  start(api: EngineApi, config: C): Promise<RunningWorker>;
}

/**
 * An in-process worker (`engine-http`, `engine-state`, the engine's own
 * `engine::*` functions): a peer whose functions are plain handlers, reached
 * through the same router and invocation table as any WebSocket worker.
 *
 * @module
 */
import { exactlyParsed, exactlyParsedMember } from "./protocol/exact_json.ts";
import {
  CallError,
  type CallOptions,
  type EngineApi,
  type ErrorBody,
  type FunctionHandler,
  type FunctionOptions,
  type InvocationContext,
  type Logger,
  markEngineFailure,
  type TriggerBinding,
  TriggerTakenError,
  type TriggerTypeProvider,
} from "./api.ts";
import type { CallRequest, Engine, WorkerConn } from "./core.ts";
import type { OutgoingCall, Peer } from "./peer.ts";
import { checkFunctionId } from "./protocol/ids.ts";
import { ErrorCode, invocationStopped } from "./protocol/errors.ts";

export class BuiltinPeer implements Peer {
  readonly kind = "builtin" as const;
  readonly backlog = 0;
  readonly overloaded = false;
  readonly handlers = new Map<string, FunctionHandler>();
  readonly providers = new Map<string, TriggerTypeProvider>();
  #engine: Engine;
  #conn!: WorkerConn;
  #running = new Map<string, AbortController>();
  #idleWaiters: (() => void)[] = [];
  #stoppable = new WeakMap<AbortSignal, Set<string>>();
  /** How many times each trigger id was handed to a provider: a later one outdates an unregister. */
  #handed = new Map<string, number>();

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  attach(conn: WorkerConn): void {
    this.#conn = conn;
  }

  get conn(): WorkerConn {
    return this.#conn;
  }

  invoke(call: OutgoingCall): void {
    const handler = this.handlers.get(call.functionId);
    const workerId = this.#conn.id;
    if (!handler) {
      this.#engine.settle(call.invocationId, workerId, {
        ok: false,
        error: markEngineFailure({
          code: ErrorCode.FunctionNotFound,
          message: `Function ${call.functionId} not found on worker "${this.#conn.name}"`,
        }),
      });
      return;
    }
    const controller = new AbortController();
    this.#running.set(call.invocationId, controller);
    // Field by field, as the sessions build their frames: no temporary object per optional field.
    const ctx: InvocationContext = {
      functionId: call.functionId,
      invocationId: call.invocationId,
      signal: controller.signal,
    };
    if (call.traceparent) ctx.traceparent = call.traceparent;
    if (call.baggage) ctx.baggage = call.baggage;
    if (call.metadata !== undefined) ctx.metadata = call.metadata;
    if (call.callerWorkerId) ctx.callerWorkerId = call.callerWorkerId;
    // Run on a later microtask so a handler never re-enters the caller's stack.
    // A payload that came as text keeps its integers beyond 2^53 exact (the frame's own parse
    // rounded them), so a built-in worker stores and answers them as they were written.
    const data = call.dataText === undefined ? call.data : exactlyParsed(call.dataText, call.data);
    Promise.resolve().then(() => handler(data, ctx)).then(
      (result) => this.#engine.settle(call.invocationId, workerId, { ok: true, result }),
      (e) => this.#engine.settle(call.invocationId, workerId, { ok: false, error: errorOf(e) }),
    ).finally(() => {
      this.#running.delete(call.invocationId);
      if (this.#running.size === 0 && this.#idleWaiters.length > 0) {
        for (const resolve of this.#idleWaiters.splice(0)) resolve();
      }
    });
  }

  /**
   * Aborts the signal of a handler whose call ended without its answer. It
   * counts as running ({@linkcode whenIdle}) until it returns: what it uses
   * must not close under it.
   */
  abandon(invocationId: string, reason: string): void {
    this.#running.get(invocationId)?.abort(new Error(reason));
  }

  async registerTrigger(binding: TriggerBinding): Promise<ErrorBody | undefined> {
    const provider = this.providers.get(binding.type);
    if (!provider) {
      return {
        code: "trigger_type_not_found",
        message: `Trigger type "${binding.type}" not found on worker "${this.#conn.name}"`,
      };
    }
    const handed = (this.#handed.get(binding.id) ?? 0) + 1;
    this.#handed.set(binding.id, handed);
    try {
      await provider.registerTrigger(binding);
      return undefined;
    } catch (e) {
      if (this.#handed.get(binding.id) === handed) this.#handed.delete(binding.id); // no unregister follows
      return {
        code: e instanceof TriggerTakenError
          ? ErrorCode.TriggerTaken
          : ErrorCode.TriggerRegistrationFailed,
        message: (e as Error).message ?? String(e),
      };
    }
  }

  /** Resolves once the provider has let go of `binding` (or kept it, as below). */
  unregisterTrigger(binding: TriggerBinding): Promise<void> {
    const provider = this.providers.get(binding.type);
    if (!provider) return Promise.resolve();
    // Later, so the engine is not re-entered; but a registration of the same id made meanwhile (a
    // trigger replaced with a new config) took the old one's place already, and is kept.
    const handed = this.#handed.get(binding.id);
    return Promise.resolve().then(() => {
      if (this.#handed.get(binding.id) !== handed) return;
      this.#handed.delete(binding.id);
      return provider.unregisterTrigger(binding);
    }).catch((e) =>
      this.#engine.log.error(`Unregistering trigger "${binding.id}" failed`, { error: String(e) })
    );
  }

  triggerRefused(binding: TriggerBinding, error: ErrorBody): void {
    this.#engine.log.warn(
      `Trigger "${binding.id}" of ${this.#conn.name} refused: ${error.message}`,
    );
  }

  protocolError(error: ErrorBody): void {
    this.#engine.log.error(`${this.#conn.name}: ${error.message}`);
  }

  close(): void {
    for (const c of this.#running.values()) c.abort();
  }

  /** Resolves once none of this worker's handlers is running (at once if none is). */
  whenIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * The calls in flight that `signal` stops. Many calls share a signal (an
   * HTTP worker's stop signal is on every call it makes), so each signal gets
   * one listener, not one per call.
   */
  #stoppedBy(signal: AbortSignal): Set<string> {
    let ids = this.#stoppable.get(signal);
    if (ids === undefined) {
      const calls = ids = new Set();
      this.#stoppable.set(signal, calls);
      signal.addEventListener("abort", () => {
        for (const id of [...calls]) this.#engine.stop(id, abortReason(signal));
        calls.clear();
      }, { once: true });
    }
    return ids;
  }

  /** The {@link EngineApi} a built-in worker programs against. */
  api(log: Logger, baseDir: string, limits: { maxFrameBytes?: number } = {}): EngineApi {
    const engine = this.#engine;
    const call = (functionId: string, payload: unknown, options: CallOptions = {}) =>
      new Promise<unknown>((resolve, reject) => {
        const signal = options.signal;
        if (signal?.aborted) {
          reject(new CallError(invocationStopped(functionId, abortReason(signal))));
          return;
        }
        const request: CallRequest = { functionId, data: payload, caller: this.#conn };
        if (options.timeoutMs !== undefined) request.timeoutMs = options.timeoutMs;
        if (options.traceparent) request.traceparent = options.traceparent;
        if (options.baggage) request.baggage = options.baggage;
        if (options.metadata !== undefined) request.metadata = options.metadata;
        if (options.trace !== undefined && options.trace !== true) request.trace = options.trace;
        let stoppable: Set<string> | undefined;
        const id = engine.invoke(request, (o) => {
          stoppable?.delete(id!);
          // A worker's result came as text: its integers beyond 2^53 stay exact (the frame's own
          // parse rounded them), so engine-http answers a client with the digits as written.
          if (o.ok) {
            resolve(
              o.frameText === undefined
                ? o.result
                : exactlyParsedMember(o.frameText, "result", o.result),
            );
          } else reject(new CallError(o.error));
        });
        if (id && signal) (stoppable = this.#stoppedBy(signal)).add(id);
      });
    return {
      registerFunction: (id: string, handler: FunctionHandler, options: FunctionOptions = {}) => {
        const problem = checkFunctionId(id);
        if (problem) throw new Error(problem);
        this.handlers.set(id, handler);
        engine.registerFunction(this.#conn, id, options);
        return () => {
          this.handlers.delete(id);
          engine.unregisterFunction(this.#conn, id);
        };
      },
      registerTriggerType: (id, description, provider, formats) => {
        this.providers.set(id, provider);
        engine.registerTriggerType(this.#conn, id, description, formats);
        return () => {
          this.providers.delete(id);
          engine.unregisterTriggerType(this.#conn, id);
        };
      },
      call,
      callVoid: (functionId, payload, options = {}) => {
        call(functionId, payload, options).catch((e: CallError) =>
          log.warn(`Call to ${functionId} failed: ${e.code}: ${e.message}`)
        );
      },
      hasFunction: (id) => engine.functions.has(id),
      whenIdle: () => this.whenIdle(),
      registerTrigger: (t) => {
        const id = crypto.randomUUID();
        engine.registerTrigger(this.#conn, {
          id,
          type: t.type,
          functionId: t.function_id,
          config: t.config,
          ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
        });
        return () => engine.unregisterTrigger(this.#conn, id);
      },
      recordSpan: (span) => engine.traces.record({ ...span, worker: this.#conn.name }),
      log,
      baseDir,
      ...(limits.maxFrameBytes !== undefined ? { maxFrameBytes: limits.maxFrameBytes } : {}),
    };
  }
}

function abortReason(signal: AbortSignal): string {
  const r = signal.reason;
  if (r instanceof DOMException && r.name === "TimeoutError") return "timed out";
  return r instanceof Error ? r.message : "aborted";
}

function errorOf(e: unknown): ErrorBody {
  if (e instanceof CallError) return e.toBody();
  if (e instanceof Error) {
    const code = typeof (e as { code?: unknown }).code === "string"
      ? (e as unknown as { code: string }).code
      : ErrorCode.InvocationFailed;
    return e.stack
      ? { code, message: e.message, stacktrace: e.stack }
      : { code, message: e.message };
  }
  return { code: ErrorCode.InvocationFailed, message: String(e) };
}

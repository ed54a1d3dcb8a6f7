/**
 * A worker: one connection to the engine, the functions, triggers and trigger
 * types registered through it, and the calls it makes.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { Connection } from "./connection.ts";
import { readEnv, workerMetadata } from "./env.ts";
import { encodeInvoke, PendingCalls } from "./calls.ts";
import { EngineError } from "./errors.ts";
import { Outbox } from "./outbox.ts";
import { oversize, oversizeMessage } from "./frame_size.ts";
import type { Frame } from "./invocation.ts";
import { Inbound } from "./inbound.ts";
import { TriggerTypeProviders } from "./provider.ts";
import { type Registered, Registrations } from "./registrations.ts";
import { currentScope } from "./trace.ts";
import { setChannelEndpoint } from "./channels/endpoint.ts";
import { OpenEnds, trackEnds } from "./channels/open_ends.ts";
import { shown, workerSettings } from "./worker_settings.ts";
import type {
  FunctionHandler,
  FunctionOptions,
  FunctionRef,
  TriggerInput,
  TriggerRef,
  TriggerRequest,
  TriggerTypeHandler,
  TriggerTypeRef,
  WorkerOptions,
} from "./types.ts";

/** Engine URL used when neither the argument nor `ENGINE_URL` gives one. */
export const DEFAULT_ENGINE_URL = "ws://localhost:49134";

const live: Worker[] = [];

/**
 * The most recently registered worker that is not shut down, if any. The
 * {@linkcode Logger} uses it outside handlers.
 *
 * @example
 * ```ts
 * console.log(defaultWorker()); // undefined when no worker is registered
 * ```
 */
export function defaultWorker(): Worker | undefined {
  return live[live.length - 1];
}

/**
 * Connects a worker to the engine and returns it. The URL is `url`, else
 * `$ENGINE_URL`, else `ws://localhost:49134`. The worker connects in the
 * background, reconnects with backoff whenever the connection drops, and
 * replays its registrations each time.
 *
 * @example
 * ```ts
 * const worker = registerWorker("ws://127.0.0.1:49134", { worker_name: "math" });
 * worker.registerFunction("math::add", ({ a, b }: { a: number; b: number }) => a + b);
 * await worker.shutdown();
 * ```
 */
export function registerWorker(url?: string, options: WorkerOptions = {}): Worker {
  const worker = new Worker(url ?? readEnv("ENGINE_URL") ?? DEFAULT_ENGINE_URL, options);
  worker.connect();
  return worker;
}

/**
 * A connection to the engine; create one with {@linkcode registerWorker}.
 *
 * @example
 * ```ts
 * const worker = registerWorker("ws://127.0.0.1:49134", { worker_name: "orders" });
 * worker.registerFunction("orders::create", ({ body }: { body: { sku: string } }) => ({
 *   status_code: 201,
 *   body: { id: "o-1", ...body },
 * }));
 * worker.registerTrigger({
 *   type: "http",
 *   function_id: "orders::create",
 *   config: { api_path: "/orders", http_method: "POST" },
 * });
 * await worker.shutdown();
 * ```
 */
export class Worker {
  /** The engine URL. */
  readonly url: string;
  /** The name reported to the engine. */
  readonly name: string;

  #conn: Connection;
  #invocationTimeoutMs: number;
  #registered = new Registrations();
  #types = new TriggerTypeProviders();
  /** Channel ends with an open socket, which shutdown() waits for and then breaks off. */
  #openEnds = new OpenEnds();
  #outbox = new Outbox();
  #calls = new PendingCalls();
  #readyWaiters: { resolve(): void; reject(err: Error): void }[] = [];
  /** Inbound frames: calls to run, results, identity, trigger registrations. */
  #inbound: Inbound;
  #started = false;
  /** Set when shutdown() starts: no new work, in-flight handlers drain. */
  #shutdown: Promise<void> | undefined;
  /** Set when the drain is over: calls are refused from then on. */
  #drained = false;

  /** Use {@linkcode registerWorker}. */
  constructor(url: string, options: WorkerOptions = {}) {
    const settings = workerSettings(url, options);
    this.url = url;
    this.name = settings.name;
    this.#invocationTimeoutMs = settings.invocationTimeoutMs;
    const { tls, handshakeTimeoutMs } = settings.connection;
    const channelOptions = { tls, handshakeTimeoutMs };
    trackEnds(channelOptions, this.#openEnds);
    setChannelEndpoint(this, { url, options: channelOptions });
    const inbound = new Inbound(this, {
      registered: this.#registered,
      types: this.#types,
      calls: this.#calls,
      send: (frame) => this.#send(frame),
    });
    this.#inbound = inbound;
    this.#conn = new Connection(settings.connection, {
      open: () => this.#onOpen(),
      message: (text) => inbound.handle(text),
      close: (code, reason) => this.#onClose(code, reason),
    });
  }

  /** Starts connecting (done by {@linkcode registerWorker}). */
  connect(): void {
    if (this.#shutdown) throw new Error("Worker is shut down");
    if (this.#started) return;
    this.#started = true;
    live.push(this);
    this.#conn.start();
  }

  /** Whether the worker is connected to the engine right now. */
  get isConnected(): boolean {
    return this.#conn.isOpen;
  }

  /** The id the engine gave this connection, once it said so. */
  get workerId(): string | undefined {
    return this.#inbound.workerId;
  }

  /**
   * Resolves when the worker is connected (at once if it is connected now).
   * Rejects with code `shutdown` if the worker shuts down first.
   *
   * @example
   * ```ts
   * const worker = registerWorker("ws://127.0.0.1:1", { reconnect: { initialDelayMs: 50 } });
   * const timeout = new Promise((resolve) => setTimeout(resolve, 100, "still connecting"));
   * console.log(await Promise.race([worker.ready().then(() => "connected"), timeout]));
   * await worker.shutdown();
   * ```
   */
  ready(): Promise<void> {
    if (this.#shutdown) return Promise.reject(new EngineError("shutdown", "Worker is shut down"));
    if (this.#conn.isOpen) return Promise.resolve();
    return new Promise((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  /**
   * Registers a function under `id` (`<namespace>::<name>`). The handler gets
   * the payload and an {@linkcode InvocationContext}; what it returns is the
   * result of the call.
   *
   * @example
   * ```ts
   * const worker = registerWorker("ws://127.0.0.1:49134");
   * const ref = worker.registerFunction(
   *   "math::add",
   *   ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
   *   { description: "Adds two numbers" },
   * );
   * ref.unregister();
   * await worker.shutdown();
   * ```
   */
  registerFunction<TIn = unknown, TOut = unknown>(
    id: string,
    handler: FunctionHandler<TIn, TOut>,
    options: FunctionOptions = {},
  ): FunctionRef {
    const added = this.#registered.addFunction(id, handler as FunctionHandler, options);
    return this.#ref(added, () => this.#registered.deleteFunction(id));
  }

  /**
   * Binds a function to events of a trigger type, e.g. an HTTP route.
   *
   * @example
   * ```ts
   * const worker = registerWorker("ws://127.0.0.1:49134");
   * worker.registerFunction("orders::list", () => ({ status_code: 200, body: [] }));
   * const trigger = worker.registerTrigger({
   *   type: "http",
   *   function_id: "orders::list",
   *   config: { api_path: "/orders", http_method: "GET" },
   * });
   * trigger.unregister();
   * await worker.shutdown();
   * ```
   */
  registerTrigger(trigger: TriggerInput): TriggerRef {
    const added = this.#registered.addTrigger(trigger);
    return this.#ref(added, () => this.#registered.deleteTrigger(added.id));
  }

  /**
   * Provides a trigger type: the engine hands this worker every trigger bound
   * to it, and the worker fires them by calling `trigger()`.
   *
   * @example
   * ```ts
   * const worker = registerWorker("ws://127.0.0.1:49134");
   * const timers = new Map<string, ReturnType<typeof setInterval>>();
   * const ref = worker.registerTriggerType<{ everyMs: number }>({ id: "ticker", description: "Fires periodically" }, {
   *   registerTrigger(t) {
   *     timers.set(t.id, setInterval(() => worker.trigger({ function_id: t.function_id, payload: {} }), t.config.everyMs));
   *   },
   *   unregisterTrigger(t) {
   *     clearInterval(timers.get(t.id));
   *     timers.delete(t.id);
   *   },
   * });
   * ref.unregister();
   * await worker.shutdown();
   * ```
   */
  registerTriggerType<C = unknown>(
    type: { id: string; description: string },
    handler: TriggerTypeHandler<C>,
  ): TriggerTypeRef {
    const added = this.#types.add(type, handler as TriggerTypeHandler);
    return this.#ref(added, () => this.#types.delete(added.id));
  }

  /**
   * Sends a registration and returns its handle: `unregister()` forgets it
   * locally and tells the engine, once.
   */
  #ref(
    { id, frame, unregisterFrame }: Registered,
    forget: () => void,
  ): { id: string; unregister(): void } {
    this.#send(frame);
    let done = false;
    return {
      id,
      unregister: () => {
        if (done) return;
        done = true;
        forget();
        this.#send(unregisterFrame);
      },
    };
  }

  /**
   * Calls a function through the engine and resolves with its result.
   * Rejects with an {@linkcode EngineError}: the callee's error, `TIMEOUT`
   * after `timeoutMs`, or `shutdown`. With `action: TriggerAction.Void()` it
   * resolves with `undefined` at once. Called inside a handler, the call
   * carries the handler's trace context.
   *
   * @example
   * ```ts
   * import { EngineError, registerWorker, TriggerAction } from "./mod.ts";
   *
   * const worker = registerWorker("ws://127.0.0.1:1", { reconnect: { initialDelayMs: 50 } });
   * try {
   *   const sum = await worker.trigger<{ a: number; b: number }, number>({
   *     function_id: "math::add",
   *     payload: { a: 1, b: 2 },
   *     timeoutMs: 100,
   *   });
   *   console.log(sum);
   * } catch (err) {
   *   if (err instanceof EngineError) console.log(err.code); // "TIMEOUT" (no engine at that address)
   * }
   * await worker.trigger({ function_id: "audit::record", payload: { event: "x" }, action: TriggerAction.Void() });
   * await worker.shutdown();
   * ```
   */
  trigger<TIn = unknown, TOut = unknown>(request: TriggerRequest<TIn>): Promise<TOut> {
    const { function_id, action } = request ?? {};
    const isVoid = action?.type === "void";
    // While draining, calls still go out (handlers finishing need them) if connected.
    if (this.#shutdown && (this.#drained || !this.#conn.isOpen)) {
      return Promise.reject(new EngineError("shutdown", "Worker is shut down"));
    }
    if (typeof function_id !== "string" || function_id === "") {
      return Promise.reject(new TypeError("trigger() needs a non-empty function_id"));
    }
    const timeoutMs: unknown = request.timeoutMs ?? this.#invocationTimeoutMs;
    if (!isVoid && !isTimeout(timeoutMs)) {
      // NaN or a string is a deadline no timer fires at: without an answer the call would wait forever.
      return Promise.reject(
        new TypeError(
          `Invalid "timeoutMs" of the call to "${function_id}": expected a number above 0, got ${
            shown(timeoutMs)
          }`,
        ),
      );
    }
    const invocationId = isVoid ? undefined : randomUUID();
    let text: string;
    try {
      text = encodeInvoke(request, invocationId, currentScope());
    } catch (err) {
      return Promise.reject(err);
    }
    const bytes = oversize(text);
    if (bytes !== undefined) {
      const message = oversizeMessage(`Call to "${function_id}"`, bytes);
      return Promise.reject(new EngineError("frame_too_large", message, { function_id }));
    }
    if (!invocationId) {
      this.#sendOrQueue(text);
      return Promise.resolve(undefined as TOut);
    }
    // Sent before wait(): its result can only arrive on a later turn of the event loop.
    const sent = this.#sendOrQueue(text, invocationId);
    return this.#calls.wait(invocationId, function_id, timeoutMs as number, sent) as Promise<TOut>;
  }

  /**
   * Shuts the worker down: the engine is first told to route no new calls
   * here (`unregisterfunction` for each function, so other replicas take
   * them), handlers already running get up to `drainTimeoutMs` (default 5000)
   * to finish and send their results (their own calls still go out), and
   * channel ends still open get what is left of that time to end; the rest
   * are broken off (their peers see an error). Then calls still waiting for a
   * result reject with code `shutdown`, the connection closes with code 1000
   * and no reconnect follows. Calls arriving meanwhile (sent before the engine
   * read the `unregisterfunction`) are answered with code `shutdown`, which
   * tells the engine they never ran: it sends them to another replica.
   *
   * @example
   * ```ts
   * const worker = registerWorker("ws://127.0.0.1:49134");
   * await worker.shutdown();
   * console.log(worker.isConnected); // false
   * ```
   */
  shutdown(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    if (this.#shutdown) return this.#shutdown;
    const idx = live.indexOf(this);
    if (idx >= 0) live.splice(idx, 1);
    for (const waiter of this.#readyWaiters.splice(0)) {
      waiter.reject(new EngineError("shutdown", "Worker is shutting down"));
    }
    // Calls queued while disconnected are not sent any more: they fail below, with the rest.
    this.#outbox.take();
    // No new calls here: the engine routes them to the other replicas from now on.
    for (const id of this.#registered.functionIds()) this.#send({ type: "unregisterfunction", id });
    // Calls the engine sent before it read that are still on their way: the drain waits for them
    // (they are refused with code shutdown and go to another replica), or closing now would leave
    // them unanswered (their callers would get invocation_stopped).
    const caughtUp = this.#conn.isOpen
      ? this.#inbound.caughtUp((frame) => this.#send(frame))
      : Promise.resolve();
    this.#shutdown = this.#drain(options.drainTimeoutMs ?? 5000, caughtUp)
      .then(() => this.#types.release()) // the provided triggers stop firing
      .then(() => {
        this.#drained = true;
        this.#calls.rejectAll(
          "shutdown",
          (id) => `Invocation of ${id} stopped: the worker is shutting down`,
        );
        return this.#conn.stop(1000, "shutdown");
      });
    return this.#shutdown;
  }

  async #drain(timeoutMs: number, caughtUp: Promise<void>): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all([this.#inbound.stop(), caughtUp]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    // An HTTP handler may return before its stream ends: the ends get the rest of the time.
    await this.#openEnds.close(deadline - performance.now(), "the worker shut down");
  }

  #onOpen(): void {
    this.#inbound.opened();
    const { workerId, reattachToken } = this.#inbound;
    if (workerId) {
      this.#send({
        type: "reattach",
        previous_worker_id: workerId,
        ...(reattachToken ? { reattach_token: reattachToken } : {}),
      });
    }
    for (const frame of this.#types.frames()) this.#send(frame);
    // A worker draining registers no function again (it unregistered them): the engine would
    // route new calls to it, which it would refuse, on a connection the drain does not wait for.
    for (const frame of this.#registered.frames(this.#shutdown === undefined)) this.#send(frame);
    for (const item of this.#outbox.take()) {
      // A call that timed out while waiting here is not sent.
      if (item.invocationId && !this.#calls.markSent(item.invocationId)) continue;
      this.#conn.send(item.text);
    }
    this.#send({
      type: "invokefunction",
      function_id: "engine::workers::register",
      data: workerMetadata(this.name),
      action: { type: "void" },
    });
    for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
  }

  /**
   * Calls sent on the connection that closed can get no result (the engine
   * drops answers to a gone connection): they fail now with
   * `invocation_stopped` instead of running into their time-out.
   */
  #onClose(code: number, reason: string): void {
    // The engine forgot the triggers it had handed to this worker's trigger types; it hands them
    // over again after the reconnect, so they are undone now rather than registered twice.
    void this.#types.release();
    this.#inbound.closed();
    const why = reason ? `${code}: ${reason}` : `${code}`;
    this.#calls.rejectSent(
      "invocation_stopped",
      (id) =>
        `Invocation stopped: the connection to the engine at ${this.url} closed (code ${why}) before "${id}" answered; it may have run`,
    );
  }

  /**
   * Sends if connected, else drops: registrations, which the next open
   * replays, and everything that answers the current connection (results,
   * registration answers, `unregistertrigger`), which the engine forgets with
   * it: a new connection could not deliver them.
   */
  #send(frame: Frame | string): void {
    this.#conn.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /**
   * Sends a `trigger()` call if connected, else queues it for the next
   * connection (not after shutdown); true if it went out now.
   */
  #sendOrQueue(text: string, invocationId?: string): boolean {
    if (this.#conn.send(text)) return true;
    if (!this.#shutdown) this.#outbox.push({ text, invocationId });
    return false;
  }
}

function isTimeout(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

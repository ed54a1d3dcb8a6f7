/**
 * The engine: connected workers, the functions and triggers they registered,
 * and the calls between them. Transport-free: WebSocket sessions and
 * in-process built-in workers reach it through {@link Peer}s.
 *
 * @module
 */
import type { ErrorBody, Logger, TriggerTypeFormats } from "./api.ts";
import type { OutgoingCall, Peer } from "./peer.ts";
import { type FunctionInfo, FunctionRegistry } from "./registry/functions.ts";
import { TriggerRegistry } from "./registry/triggers.ts";
import { route } from "./router.ts";
import { type Invocation, Invocations, type Outcome } from "./invocations.ts";
import { RegistrationLog } from "./registration_log.ts";
import { Holds } from "./holds.ts";
import { invocationStopped, invocationTimeout, refusedAtShutdown } from "./protocol/errors.ts";
import { RefusedIds } from "./refused_ids.ts";
import { isCliConnection, registeredLine } from "./connection_log.ts";
import { newSpanId, newTraceId, parseTraceparent } from "./observability/traceparent.ts";
import type { TraceStore } from "./observability/traces.ts";
import { callSpan, isTraced } from "./call_span.ts";
import { TriggerBindings } from "./trigger_bindings.ts";
import { sameToken } from "./token.ts";

/** The code of a worker's answer to a call that reached it while it shut down: it never ran. */
const SHUTDOWN = "shutdown";

export type { Outcome } from "./invocations.ts";

export interface WorkerConn {
  id: string;
  reattachToken: string;
  peer: Peer;
  /** Name from the worker's metadata, else a generated one. */
  name: string;
  kind: "websocket" | "builtin";
  metadata: Record<string, unknown>;
  connectedAt: number;
  remoteAddress?: string;
}

export interface CallRequest {
  functionId: string;
  data: unknown;
  /**
   * The JSON text `data` arrived as, when a worker sent it: passed on as it
   * is instead of serializing `data` again. Only ever the exact text of
   * `data`; whoever builds a request with other data leaves it out.
   */
  dataText?: string;
  caller?: WorkerConn;
  timeoutMs?: number;
  traceparent?: string;
  baggage?: string;
  metadata?: unknown;
  /**
   * `false`: the call is not recorded as a span (the engine's own event
   * deliveries); `"async"`: its span is marked as a call the caller does not
   * wait for (a fire-and-forget call, a trigger's or a queue's delivery).
   */
  trace?: boolean | "async";
}

export type EngineEvent =
  | { type: "worker_connected" | "worker_disconnected" | "worker_updated"; workerId: string }
  | { type: "functions_changed"; added: string[]; removed: string[] }
  | { type: "triggers_changed" };

export interface EngineOptions {
  log: Logger;
  traces: TraceStore;
  /** Engine-side deadline of a call (default 30 s). */
  invocationTimeoutMs?: number;
}

export class Engine {
  readonly workers = new Map<string, WorkerConn>();
  readonly functions = new FunctionRegistry<string>();
  readonly triggers = new TriggerRegistry<string>();
  readonly invocations = new Invocations((inv) =>
    this.cancel(inv.id, invocationTimeout(inv.functionId, inv.timeoutMs, inv.engineDeadline))
  );
  readonly log: Logger;
  readonly traces: TraceStore;
  readonly invocationTimeoutMs: number;
  readonly refusedIds = new RefusedIds(); // named by function_not_found
  #listeners = new Set<(event: EngineEvent) => void>();
  #registrations: RegistrationLog;
  #bindings: TriggerBindings;
  #tick = 0;
  #inFlight = (owner: string) => this.invocations.inFlight(owner);
  #holds = new Holds({
    route: (call, remainingMs) =>
      this.invoke({ ...call.req, timeoutMs: remainingMs }, call.settle, call.id),
    expire: (call) =>
      call.settle({
        ok: false,
        error: invocationTimeout(
          call.req.functionId,
          call.req.timeoutMs ?? this.invocationTimeoutMs,
        ),
      }),
  });

  constructor(options: EngineOptions) {
    this.log = options.log;
    this.#registrations = new RegistrationLog(options.log);
    this.traces = options.traces;
    this.invocationTimeoutMs = options.invocationTimeoutMs ?? 30_000;
    this.#bindings = new TriggerBindings({
      workers: this.workers,
      triggers: this.triggers,
      log: this.log,
      changed: () => this.#emit({ type: "triggers_changed" }),
    });
  }

  // ---- events -------------------------------------------------------------

  /** Subscribes to changes of workers, functions and triggers; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: EngineEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch (e) {
        this.log.error("Engine event listener failed", { error: String(e) });
      }
    }
  }

  // ---- workers ------------------------------------------------------------

  connect(
    peer: Peer,
    info: { name?: string; remoteAddress?: string; metadata?: Record<string, unknown> } = {},
  ): WorkerConn {
    const id = crypto.randomUUID();
    const conn: WorkerConn = {
      id,
      reattachToken: crypto.randomUUID(),
      peer,
      name: info.name ?? `worker-${id.slice(0, 8)}`,
      kind: peer.kind,
      metadata: info.metadata ?? {},
      connectedAt: Date.now(),
      ...(info.remoteAddress ? { remoteAddress: info.remoteAddress } : {}),
    };
    this.workers.set(id, conn);
    if (info.name !== undefined) this.#registrations.described(conn);
    this.#emit({ type: "worker_connected", workerId: id });
    return conn;
  }

  /** Records what a worker told about itself (`engine::workers::register`). */
  describeWorker(workerId: string, metadata: Record<string, unknown>): void {
    const conn = this.workers.get(workerId);
    if (!conn) return;
    conn.metadata = { ...conn.metadata, ...metadata };
    if (typeof metadata.name === "string" && metadata.name !== "") conn.name = metadata.name;
    const line = registeredLine(conn); // none for the CLI's own connections
    if (line !== undefined) this.log.debug(line, { worker_id: workerId });
    this.#registrations.described(conn);
    this.#emit({ type: "worker_updated", workerId });
  }

  /**
   * Forgets a worker at once: its functions and triggers go, the calls it was
   * running fail with `invocation_stopped`, its trigger types' triggers wait.
   */
  disconnect(workerId: string, reason = "disconnected"): void {
    const conn = this.workers.get(workerId);
    if (!conn) return;
    this.workers.delete(workerId);
    this.#registrations.left(workerId);
    this.refusedIds.forget(workerId);
    const removed = this.functions.removeOwner(workerId);
    for (const id of this.invocations.ofTarget(workerId)) {
      this.stop(id, `worker "${conn.name}" ${reason} before answering`);
    }
    this.#bindings.dropWorker(conn);
    if (removed.length > 0) {
      // Built-in workers come and go with the engine, the CLI's connections with its commands.
      if (conn.kind === "websocket" && !isCliConnection(conn)) {
        this.log.info(`Worker "${conn.name}" ${reason}: removed ${removed.length} function(s)`, {
          worker_id: workerId,
          functions: removed.length <= 20 ? removed : [...removed.slice(0, 20), "…"],
        });
      }
      this.#emit({ type: "functions_changed", added: [], removed });
    }
    this.#emit({ type: "triggers_changed" });
    this.#emit({ type: "worker_disconnected", workerId });
  }

  /**
   * A reconnecting worker names its previous connection; if the token
   * matches and that connection still lingers, it is cleaned up now so the
   * replay that follows starts from a clean slate.
   */
  reattach(conn: WorkerConn, previousId: string, token: string | undefined): boolean {
    if (previousId === conn.id) return false;
    const previous = this.workers.get(previousId);
    if (!previous || token === undefined || !sameToken(token, previous.reattachToken)) {
      return false;
    }
    previous.peer.close(1000, "replaced by a reattached connection");
    this.disconnect(previousId, "replaced by a reattached connection");
    return true;
  }

  // ---- functions ----------------------------------------------------------

  registerFunction(conn: WorkerConn, id: string, info: FunctionInfo = {}): void {
    if (!this.workers.has(conn.id)) return;
    const isNew = this.functions.add(id, conn.id, info);
    // Listeners (the console's, `engine logs -f`) are internal and not worth a line.
    if (isNew && conn.kind === "websocket" && info.metadata?.internal !== true) {
      this.#registrations.registered(conn, id);
    }
    this.#emit({ type: "functions_changed", added: isNew ? [id] : [], removed: [] });
  }

  unregisterFunction(conn: WorkerConn, id: string): void {
    const gone = this.functions.remove(id, conn.id);
    this.#emit({ type: "functions_changed", added: [], removed: gone ? [id] : [] });
  }

  // ---- calls --------------------------------------------------------------

  /**
   * Routes a call. `settle` is called exactly once with the outcome (at once
   * for an unknown function, unless it is held: {@linkcode holdFunctions}).
   * Returns the invocation id when the call left or waits, by which
   * {@linkcode stop} ends it; `id` is given when a held call is routed.
   */
  invoke(req: CallRequest, settle: (outcome: Outcome) => void, id?: string): string | undefined {
    const decision = route(this.functions, req.functionId, this.#inFlight, this.#tick++);
    if (decision.kind === "not_found") {
      if (this.#holds.covers(req.functionId)) {
        id ??= crypto.randomUUID();
        this.#holds.wait(id, req, settle, req.timeoutMs ?? this.invocationTimeoutMs);
        return id;
      }
      settle({ ok: false, error: this.refusedIds.notFound(req.functionId) });
      return undefined;
    }
    const target = this.workers.get(decision.owner)!;
    const parent = parseTraceparent(req.traceparent);
    const traceId = parent?.traceId ?? newTraceId();
    const spanId = newSpanId();
    id ??= crypto.randomUUID();
    const timeoutMs = req.timeoutMs ?? this.invocationTimeoutMs;
    const inv: Invocation = {
      id,
      functionId: req.functionId,
      target: target.id,
      caller: req.caller?.id,
      start: Date.now(),
      timeoutMs,
      engineDeadline: req.timeoutMs === undefined,
      // As setTimeout did: a non-finite or negative time-out expires at once.
      deadline: performance.now() + (Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 0),
      traceId,
      spanId,
      parentSpanId: parent?.spanId,
      traced: isTraced(req.trace, target.kind, decision.info, parent !== undefined),
      retryText: undefined,
      settle,
    };
    this.invocations.add(inv);
    const call: OutgoingCall = {
      invocationId: id,
      functionId: req.functionId,
      data: req.data,
      traceparent: `00-${traceId}-${spanId}-01`,
    };
    if (req.dataText !== undefined) call.dataText = req.dataText;
    if (req.metadata !== undefined) call.metadata = req.metadata;
    if (req.baggage !== undefined) call.baggage = req.baggage;
    if (req.caller) call.callerWorkerId = req.caller.id;
    const text = target.peer.invoke(call);
    // Kept only where another replica could take the call if this one is shutting down.
    if (decision.replicas > 1 && text !== undefined) inv.retryText = text;
    return id;
  }

  /**
   * A call its target cannot take (a worker not reading its socket) goes to
   * the replica with the fewest calls in flight among those that can, if
   * any. Only on that rare path: routing itself never looks at backlogs.
   */
  reroute(call: OutgoingCall, fromWorkerId: string): boolean {
    const inv = this.invocations.get(call.invocationId);
    if (!inv || inv.target !== fromWorkerId) return false;
    const best = this.#otherReplica(inv, false);
    if (!best) return false;
    this.invocations.retarget(inv, best.id);
    best.peer.invoke(call);
    return true;
  }

  /**
   * The live replica of `inv`'s function, other than its target, with the fewest calls in flight
   * and not overloaded; with `asText`, only one whose peer takes a frame's text.
   */
  #otherReplica(inv: Invocation, asText: boolean): WorkerConn | undefined {
    let best: WorkerConn | undefined;
    let bestLoad = Infinity;
    for (const replica of this.functions.replicas(inv.functionId)) {
      const worker = replica.owner === inv.target ? undefined : this.workers.get(replica.owner);
      if (!worker || worker.peer.overloaded || (asText && !worker.peer.invokeText)) continue;
      const load = this.invocations.inFlight(worker.id);
      if (load < bestLoad) [best, bestLoad] = [worker, load];
    }
    return best;
  }

  /**
   * The outcome of a call, from the worker that ran it. Results from anyone
   * else are dropped. A worker shutting down answers the calls that reach it
   * then with code `shutdown` (they never ran): such a call goes once to
   * another live replica ({@linkcode sendOn}), else fails naming the worker.
   */
  settle(invocationId: string, fromWorkerId: string, outcome: Outcome): boolean {
    if (!outcome.ok && outcome.error.code === SHUTDOWN) {
      return this.#refusedAtShutdown(invocationId, fromWorkerId, outcome.error);
    }
    const inv = this.invocations.take(invocationId, fromWorkerId);
    if (!inv) return false;
    this.#finish(inv, outcome);
    return true;
  }

  #refusedAtShutdown(invocationId: string, fromWorkerId: string, error: ErrorBody): boolean {
    const inv = this.invocations.get(invocationId);
    if (!inv || inv.target !== fromWorkerId) return false;
    const text = inv.retryText;
    inv.retryText = undefined; // once: a second refusal ends the call
    if (text !== undefined && this.sendOn(inv, text)) return true;
    this.invocations.take(invocationId, fromWorkerId);
    const name = this.workers.get(fromWorkerId)?.name ?? fromWorkerId;
    this.#finish(inv, { ok: false, error: refusedAtShutdown(inv.functionId, name, error.message) });
    return true;
  }

  /**
   * Sends a call its target refused unrun to the live replica with the fewest
   * calls in flight, as the frame `text` the target got; false if none can
   * take it.
   */
  sendOn(inv: Invocation, text: string): boolean {
    const best = this.#otherReplica(inv, true);
    if (!best) return false;
    this.invocations.retarget(inv, best.id);
    best.peer.invokeText!(text);
    return true;
  }

  /** Ends a call with an error (time-out, stop, abort). */
  cancel(invocationId: string, error: ErrorBody): void {
    const inv = this.invocations.take(invocationId);
    if (inv) this.#abandon(inv, error);
    else this.#holds.take(invocationId)?.settle({ ok: false, error });
  }

  /** Ends a call before its worker answered: `Invocation of <function> stopped: <reason>`. */
  stop(invocationId: string, reason: string): void {
    const inv = this.invocations.take(invocationId);
    if (inv) this.#abandon(inv, invocationStopped(inv.functionId, reason));
    const held = inv ? undefined : this.#holds.take(invocationId);
    held?.settle({ ok: false, error: invocationStopped(held.req.functionId, reason) });
  }

  /** Ends a call its worker has not answered; the worker's peer lets go of it (`Peer.abandon`). */
  #abandon(inv: Invocation, error: ErrorBody): void {
    this.workers.get(inv.target)?.peer.abandon?.(inv.id, error.message);
    this.#finish(inv, { ok: false, error });
  }

  /**
   * Makes calls to `functionIds` wait while they are not registered, within
   * their time-out, until the returned function releases them (a built-in
   * worker restarting on a config reload). See `holds.ts`.
   */
  holdFunctions(functionIds: Iterable<string>): () => void {
    return this.#holds.hold(functionIds);
  }

  /** The ids of the calls waiting for a held function. */
  heldCallIds(): string[] {
    return this.#holds.ids();
  }

  #finish(inv: Invocation, outcome: Outcome): void {
    const target = this.workers.get(inv.target);
    if (inv.traced) this.traces.record(callSpan(inv, target?.name, outcome));
    try {
      inv.settle(outcome);
    } catch (e) {
      this.log.error(`Delivering the outcome of ${inv.functionId} failed`, { error: String(e) });
    }
  }

  // ---- trigger types and triggers (trigger_bindings.ts) ----------------------

  /** Adds or replaces the provider of trigger type `id` ({@linkcode TriggerBindings.registerType}). */
  registerTriggerType(
    conn: WorkerConn,
    id: string,
    description: string,
    formats?: TriggerTypeFormats,
  ): ErrorBody | undefined {
    return this.#bindings.registerType(conn, id, description, formats);
  }

  unregisterTriggerType(conn: WorkerConn, id: string): void {
    this.#bindings.unregisterType(conn, id);
  }

  /** Adds (or, for its own worker, replaces) a trigger ({@linkcode TriggerBindings.register}). */
  registerTrigger(
    conn: WorkerConn,
    t: { id: string; type: string; functionId: string; config: unknown; metadata?: unknown },
  ): ErrorBody | undefined {
    return this.#bindings.register(conn, t);
  }

  /** Removes a trigger; only the worker that registered it may. */
  unregisterTrigger(conn: WorkerConn, id: string): boolean {
    return this.#bindings.unregister(conn, id);
  }
}

/**
 * What a worker does with each frame the engine sends it: calls to run,
 * results of its own calls, its identity, trigger (un)registrations for the
 * trigger types it provides, and errors.
 *
 * @module
 */

import type { PendingCalls } from "./calls.ts";
import { type Frame, runInvocation } from "./invocation.ts";
import type { TriggerTypeProviders } from "./provider.ts";
import type { Registrations } from "./registrations.ts";

/**
 * The parts of a worker that inbound frames reach. The worker hands them
 * over once, at construction; `send` is what the worker sends answers with
 * (dropped while disconnected).
 */
export interface InboundParts {
  readonly registered: Registrations;
  readonly types: TriggerTypeProviders;
  readonly calls: PendingCalls;
  send(frame: Frame | string): void;
}

/**
 * Dispatches the inbound frames of one worker. It keeps what only they
 * decide: the worker's id and reattach token, the handlers running, and how
 * many times the connection opened (an answer belongs to the connection it
 * was asked on).
 *
 * @example
 * ```ts
 * import { PendingCalls } from "./calls.ts";
 * import { TriggerTypeProviders } from "./provider.ts";
 * import { Registrations } from "./registrations.ts";
 *
 * const sent: unknown[] = [];
 * const registered = new Registrations();
 * registered.addFunction("math::double", (n) => (n as number) * 2, {});
 * const inbound = new Inbound(undefined, {
 *   registered,
 *   types: new TriggerTypeProviders(),
 *   calls: new PendingCalls(),
 *   send: (frame) => sent.push(frame),
 * });
 * inbound.handle(JSON.stringify({ type: "workerregistered", worker_id: "w-1" }));
 * inbound.handle(
 *   JSON.stringify({ type: "invokefunction", invocation_id: "i-1", function_id: "math::double", data: 21 }),
 * );
 * await inbound.stop();
 * console.log(inbound.workerId, sent); // w-1 [ '{"type":"invocationresult",...,"result":42}' ]
 * ```
 */
export class Inbound {
  #worker: unknown;
  #parts: InboundParts;
  #inflight = new Set<Promise<void>>();
  #workerId: string | undefined;
  #reattachToken: string | undefined;
  #opens = 0;
  #stopped = false;
  /** Waits for the engine's next JSON `pong` ({@linkcode Inbound.caughtUp}). */
  #pongs: (() => void)[] = [];

  /** `worker` is what handlers' scopes and channel ends belong to. */
  constructor(worker: unknown, parts: InboundParts) {
    this.#worker = worker;
    this.#parts = parts;
  }

  /** The id the engine gave the worker's connection, once it said so. */
  get workerId(): string | undefined {
    return this.#workerId;
  }

  /** The token that lets a new connection take the worker's place, if the engine gave one. */
  get reattachToken(): string | undefined {
    return this.#reattachToken;
  }

  /** Counts a new connection: answers decided for an earlier one are not sent on it. */
  opened(): void {
    this.#opens++;
  }

  /**
   * Sends a JSON `ping` with `send` and resolves at the engine's `pong`: the
   * engine handles a connection's frames in order, so by then it has read
   * what was sent before, and every call it sent this way has arrived. Also
   * resolves when the connection closes ({@linkcode Inbound.closed}).
   */
  caughtUp(send: (frame: Frame) => void): Promise<void> {
    const promise = new Promise<void>((resolve) => this.#pongs.push(resolve)); // Node 20: no withResolvers
    send({ type: "ping" });
    return promise;
  }

  /** The connection closed: no `pong` is coming on it. */
  closed(): void {
    for (const resolve of this.#pongs.splice(0)) resolve();
  }

  /**
   * From now on calls are answered with code `shutdown` instead of run;
   * resolves once the handlers running now have settled.
   */
  stop(): Promise<unknown> {
    this.#stopped = true;
    return Promise.allSettled([...this.#inflight]);
  }

  /** Handles one text frame from the engine. */
  handle(text: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text);
    } catch (err) {
      console.error("[engine-sdk] Failed to parse incoming message", err);
      return;
    }
    if (typeof msg !== "object" || msg === null) return;
    switch (msg.type) {
      case "workerregistered":
        if (typeof msg.worker_id === "string") this.#workerId = msg.worker_id;
        this.#reattachToken = typeof msg.reattach_token === "string"
          ? msg.reattach_token
          : undefined;
        return;
      case "invokefunction":
        this.#invoke(msg);
        return;
      case "invocationresult":
        this.#parts.calls.settle(msg);
        return;
      case "pong":
        this.#pongs.shift()?.();
        return;
      case "registertrigger": {
        // An answer decided after the connection changed is not sent: the engine forgot the
        // question with the old connection and asks again on the new one.
        const opens = this.#opens;
        void this.#parts.types.register(msg).then((answer) => {
          if (opens === this.#opens) this.#parts.send(answer);
        });
        return;
      }
      case "unregistertrigger":
        void this.#parts.types.unregister(msg);
        return;
      case "triggerregistrationresult": {
        const error = msg.error as { message?: unknown } | undefined;
        if (error) {
          console.error(
            `[engine-sdk] Trigger registration failed for "${msg.id}" (${msg.trigger_type}): ${error.message}`,
          );
        }
        return;
      }
      case "error": {
        const error = msg.error as { code?: unknown; message?: unknown } | undefined;
        console.error(`[engine-sdk] Engine error ${error?.code}: ${error?.message}`);
        return;
      }
    }
  }

  #invoke(msg: Record<string, unknown>): void {
    if (this.#stopped) {
      if (typeof msg.invocation_id !== "string") return;
      this.#parts.send({
        type: "invocationresult",
        invocation_id: msg.invocation_id,
        function_id: msg.function_id,
        error: { code: "shutdown", message: "Worker is shutting down" },
      });
      return;
    }
    const handler = this.#parts.registered.handler(String(msg.function_id));
    const run: Promise<void> = runInvocation(msg, handler, this.#worker).then((text) => {
      this.#inflight.delete(run);
      if (text !== undefined) this.#parts.send(text);
    });
    this.#inflight.add(run);
  }
}

/**
 * A peer is where a worker's functions run: a WebSocket connection, an
 * in-process built-in worker, and later a worker behind another engine. The
 * engine talks to every kind through this one interface.
 *
 * @module
 */
import type { ErrorBody, TriggerBinding } from "./api.ts";

/** A call on its way to the worker that runs the function. */
export interface OutgoingCall {
  invocationId: string;
  functionId: string;
  data: unknown;
  /** The JSON text of `data` as it arrived, for a peer that sends text (see `CallRequest`). */
  dataText?: string;
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
  /** The worker id of the caller, when the caller is a worker. */
  callerWorkerId?: string;
}

export interface Peer {
  readonly kind: "websocket" | "builtin";
  /**
   * Delivers a call; its outcome comes back through `Engine.settle`. A peer
   * that sent it as a frame answers the frame's text (see `invokeText`).
   */
  invoke(call: OutgoingCall): string | void;
  /** Sends an `invokefunction` frame's text as another peer wrote it (a call sent on). */
  invokeText?(text: string): void;
  /**
   * The call ended without this peer's answer (it timed out or was stopped):
   * whatever runs it may stop, its answer is no longer taken. `reason` is the
   * message the call ended with.
   */
  abandon?(invocationId: string, reason: string): void;
  /** Hands a trigger to this peer as provider of its type; resolves with a refusal, if any. */
  registerTrigger(binding: TriggerBinding): Promise<ErrorBody | undefined>;
  /** Takes a trigger back; a promise resolves once the provider has let go of it. */
  unregisterTrigger(binding: TriggerBinding): void | Promise<void>;
  /** Tells the worker that one of its triggers was refused. */
  triggerRefused(binding: TriggerBinding, error: ErrorBody): void;
  /** Reports a protocol error to the worker (an `error` frame). */
  protocolError(error: ErrorBody): void;
  /** Closes the connection (no-op for in-process peers). */
  close(code: number, reason: string): void;
  /** Bytes queued for this peer and not yet written, when known. */
  readonly backlog: number;
  /** True while the peer takes no calls because it is not reading what was sent to it. */
  readonly overloaded: boolean;
}

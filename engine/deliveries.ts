/**
 * Deliveries of a built-in trigger type to one bound function: each payload
 * is a call of its own, made without the engine waiting for it. At most
 * `concurrency` calls are in flight; later payloads wait in a bounded queue
 * whose oldest are dropped (and counted) when it is full, so a slow or stuck
 * function costs the engine a fixed amount of memory and never holds it up.
 * With `latestOnly`, the queue keeps only the newest payload: for snapshots
 * (the function list), where a newer one says everything an older one did.
 *
 * A failing function is reported once per binding, in a warning that names
 * it; the other bindings' deliveries go on regardless.
 *
 * A recorded delivery is the root of a trace of its own: nothing the engine
 * records caused it. Only with `onTrace` (the `log` type, whose deliveries
 * are not recorded) does a call carry a trace context of its own making,
 * whose trace id the loop guard must know before the call leaves; its parent
 * span is never recorded, nor is the delivery's, so the spans of what such a
 * function calls have a parent outside the trace, as those of a request
 * with an inbound `traceparent` do.
 *
 * @module
 */
import type { EngineApi } from "./api.ts";
import { ErrorCode } from "./protocol/errors.ts";
import { newSpanId, newTraceId } from "./observability/traceparent.ts";

const GONE = new Set<string>([ErrorCode.FunctionNotFound, ErrorCode.InvocationStopped]);

export interface DeliveryOptions {
  /** The trigger type, for the warning. */
  type: string;
  /** The trigger's id, for the warning. */
  triggerId: string;
  functionId: string;
  /** Payloads waiting beyond those in flight (default 1000). */
  capacity?: number;
  /** Calls in flight at once (default 1). */
  concurrency?: number;
  /** Keep only the newest waiting payload. */
  latestOnly?: boolean;
  /** Each call's time-out (default 10 s). */
  timeoutMs?: number;
  /** `false`: calls are not recorded as spans. */
  trace?: boolean;
  /** Told each call's trace id before it leaves (the `log` type's loop guard). */
  onTrace?: (traceId: string) => void;
}

export class Deliveries<P> {
  #queue: P[] = [];
  #inFlight = 0;
  #dropped = 0;
  #closed = false;
  #warned = false;
  #capacity: number;
  #concurrency: number;

  constructor(readonly api: EngineApi, readonly options: DeliveryOptions) {
    this.#capacity = options.capacity ?? 1000;
    this.#concurrency = options.concurrency ?? 1;
  }

  /** Payloads dropped so far because the function did not keep up. */
  get dropped(): number {
    return this.#dropped;
  }

  push(payload: P): void {
    if (this.#closed) return;
    if (this.options.latestOnly) {
      this.#queue = [payload];
    } else {
      this.#queue.push(payload);
      if (this.#queue.length > this.#capacity) {
        this.#queue.shift();
        if (this.#dropped++ === 0) this.#warnDropping();
      }
    }
    this.#pump();
  }

  /** Stops delivering: waiting payloads are forgotten, calls in flight finish on their own. */
  close(): void {
    this.#closed = true;
    this.#queue = [];
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight < this.#concurrency && this.#queue.length > 0) {
      this.#send(this.#queue.shift()!);
    }
  }

  #warnDropping(): void {
    // In a trace of its own only where the loop guard needs it (`log`): no spans are in it.
    const traceId = this.options.onTrace ? newTraceId() : undefined;
    if (traceId !== undefined) this.options.onTrace!(traceId);
    const fields = traceId === undefined ? {} : { traceId };
    this.api.log.child({ ...fields, function: this.options.functionId }).warn(
      `Trigger "${this.options.triggerId}" (${this.options.type}): ${this.options.functionId} does not keep up: more than ${this.#capacity} payloads wait, the oldest are dropped`,
    );
  }

  #send(payload: P): void {
    const { api, options } = this;
    const traceId = options.onTrace ? newTraceId() : undefined;
    if (traceId !== undefined) options.onTrace!(traceId);
    this.#inFlight++;
    // On a later microtask: whoever pushed (a log write, an engine event) is never re-entered.
    Promise.resolve().then(() =>
      api.call(options.functionId, payload, {
        timeoutMs: options.timeoutMs ?? 10_000,
        ...(traceId === undefined ? {} : { traceparent: `00-${traceId}-${newSpanId()}-01` }),
        ...(options.trace === false ? { trace: false } : {}),
      })
    ).catch((e: Error & { code?: string }) => {
      // Once per binding: a function failing every call would otherwise fill the log. A function
      // gone (its worker left) is the trigger's end, which its worker's exit says already.
      if (this.#warned || this.#closed || GONE.has(e.code ?? "")) return;
      this.#warned = true;
      // A recorded delivery's trace id is the engine's: the failed span names the function.
      api.log.child({ ...(traceId === undefined ? {} : { traceId }), function: options.functionId })
        .warn(
          `Trigger "${options.triggerId}" (${options.type}): ${options.functionId} failed: ${
            e.code ? `${e.code}: ` : ""
          }${e.message}; further failures of this trigger are not logged`,
        );
    }).finally(() => {
      this.#inFlight--;
      this.#pump();
    });
  }
}

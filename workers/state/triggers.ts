/**
 * The `state` trigger type: a trigger `{scope?, key?, condition_function_id?}`
 * calls its function with a {@link StateEvent} after each change it matches.
 * Delivery happens after the write has answered, to each trigger in the order
 * of the changes; a failing handler is logged and changes nothing. The calls
 * carry the trace context of the write, so they continue its trace: children
 * of the write's span that start after it ended.
 *
 * @module
 */

import type {
  CallOptions,
  EngineApi,
  TriggerBinding,
  TriggerTypeProvider,
} from "../../engine/api.ts";
import type { ChangeCause } from "./functions.ts";
import { type JsonValue, quoteName } from "./values.ts";

/** The kinds of change a `state` trigger hears about. */
export type StateEventType = "state:created" | "state:updated" | "state:deleted";

/** The payload a `state` trigger's function receives. */
export interface StateEvent {
  type: "state";
  event_type: StateEventType;
  scope: string;
  key: string;
  /** The value before; `null` when created. */
  old_value: JsonValue;
  /** The value after; `null` when deleted. */
  new_value: JsonValue;
}

/** The config of a `state` trigger; an omitted filter matches everything. */
export interface StateTriggerConfig {
  scope?: string;
  key?: string;
  /** Called first with the event; a result of exactly `false` skips the handler. */
  condition_function_id?: string;
}

/**
 * Checks a trigger's config; throws an `Error` naming the field when it is
 * refused. Unknown keys are tolerated, as in the reference.
 */
export function parseStateTriggerConfig(raw: unknown): StateTriggerConfig {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new Error(`Invalid state trigger config: expected an object with "scope" and/or "key"`);
  }
  const config: StateTriggerConfig = {};
  for (const field of ["scope", "key", "condition_function_id"] as const) {
    const value = (raw as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value === "") {
      throw new Error(`Invalid state trigger config: "${field}" must be a non-empty string`);
    }
    config[field] = value;
  }
  return config;
}

interface Subscription {
  binding: TriggerBinding;
  config: StateTriggerConfig;
  /**
   * The last of its deliveries. Conditions are asked at once, but each
   * delivery calls the handler only after the one before has called it (or
   * skipped it), not waiting for the handler to answer: a condition deciding
   * slowly on one change cannot let a later change reach the handler first.
   */
  tail: Promise<void>;
}

/** The provider of the `state` trigger type, and the fan-out of change events. */
export class StateTriggers implements TriggerTypeProvider {
  readonly #api: Pick<EngineApi, "call" | "log">;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();
  readonly #stopping = new AbortController();

  constructor(api: Pick<EngineApi, "call" | "log">) {
    this.#api = api;
  }

  /** How many `state` triggers are registered. */
  get size(): number {
    return this.#subscriptions.size;
  }

  registerTrigger(binding: TriggerBinding): void {
    const config = parseStateTriggerConfig(binding.config);
    this.#subscriptions.set(binding.id, { binding, config, tail: Promise.resolve() });
  }

  unregisterTrigger(binding: TriggerBinding): void {
    this.#subscriptions.delete(binding.id);
  }

  /**
   * Delivers `event` to every matching trigger, after the current task, so
   * the write that caused it answers first. Returns at once. `cause`: the
   * trace context of the write, which the condition and handler calls carry.
   */
  fire(event: StateEvent, cause?: ChangeCause): void {
    if (this.#subscriptions.size === 0 || this.#stopping.signal.aborted) return;
    const matching: Subscription[] = [];
    for (const subscription of this.#subscriptions.values()) {
      const { scope, key } = subscription.config;
      if (
        (scope === undefined || scope === event.scope) && (key === undefined || key === event.key)
      ) {
        matching.push(subscription);
      }
    }
    if (matching.length === 0) return;
    const trace: ChangeCause = {};
    if (cause?.traceparent) trace.traceparent = cause.traceparent;
    if (cause?.baggage) trace.baggage = cause.baggage;
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      for (const subscription of matching) {
        const passes = this.#ask(subscription, event, trace);
        subscription.tail = subscription.tail.then(async () => {
          if (await passes) this.#handle(subscription, event, trace);
        });
      }
    }, 0);
    this.#pending.add(timer);
  }

  /** Drops undelivered events and abandons deliveries in flight. */
  stop(): void {
    this.#stopping.abort();
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
    this.#subscriptions.clear();
  }

  /**
   * Whether the trigger's condition, if any, lets `event` through. Never
   * rejects: a failing condition is logged and stops the event.
   */
  async #ask(
    { binding, config }: Subscription,
    event: StateEvent,
    trace: ChangeCause,
  ): Promise<boolean> {
    const condition = config.condition_function_id;
    if (condition === undefined || this.#stopping.signal.aborted) {
      return !this.#stopping.signal.aborted;
    }
    try {
      return await this.#api.call(condition, event, this.#options(binding, trace)) !== false;
    } catch (error) {
      this.#failed(binding, "condition", condition, event, error);
      return false;
    }
  }

  /** Calls the handler with `event`, without waiting for its answer; a failure is logged. */
  #handle({ binding }: Subscription, event: StateEvent, trace: ChangeCause): void {
    if (this.#stopping.signal.aborted) return;
    this.#api.call(binding.functionId, event, this.#options(binding, trace)).catch((error) =>
      this.#failed(binding, "handler", binding.functionId, event, error)
    );
  }

  #options(binding: TriggerBinding, trace: ChangeCause): CallOptions {
    const options: CallOptions = { signal: this.#stopping.signal };
    if (trace.traceparent !== undefined) {
      options.traceparent = trace.traceparent;
      options.trace = "async"; // a child of the write that starts after it ended
    }
    if (trace.baggage !== undefined) options.baggage = trace.baggage;
    if (binding.metadata !== undefined) options.metadata = binding.metadata;
    return options;
  }

  #failed(
    binding: TriggerBinding,
    role: "condition" | "handler",
    functionId: string,
    event: StateEvent,
    error: unknown,
  ): void {
    if (this.#stopping.signal.aborted) return;
    this.#api.log.warn(
      `State trigger "${binding.id}" ${role} "${functionId}" failed on ${event.event_type} of scope ${
        quoteName(event.scope)
      } key ${quoteName(event.key)}: ${error instanceof Error ? error.message : String(error)}`,
      { trigger: binding.id, function: functionId, scope: event.scope, key: event.key },
    );
  }
}

/**
 * The `state` trigger type: a trigger `{scope?, key?, condition_function_id?}`
 * calls its function with a {@link StateEvent} after each change it matches.
 * Delivery happens after the write has answered; a failing handler is logged
 * and changes nothing.
 *
 * @module
 */

import type {
  CallOptions,
  EngineApi,
  TriggerBinding,
  TriggerTypeProvider,
} from "../../engine/api.ts";
import type { JsonValue } from "./values.ts";

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
    this.#subscriptions.set(binding.id, { binding, config });
  }

  unregisterTrigger(binding: TriggerBinding): void {
    this.#subscriptions.delete(binding.id);
  }

  /**
   * Delivers `event` to every matching trigger, after the current task, so
   * the write that caused it answers first. Returns at once.
   */
  fire(event: StateEvent): void {
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
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      for (const subscription of matching) void this.#deliver(subscription, event);
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

  async #deliver({ binding, config }: Subscription, event: StateEvent): Promise<void> {
    const options: CallOptions = { signal: this.#stopping.signal };
    if (binding.metadata !== undefined) options.metadata = binding.metadata;
    let step = config.condition_function_id;
    try {
      if (step !== undefined && await this.#api.call(step, event, options) === false) return;
      step = binding.functionId;
      await this.#api.call(binding.functionId, event, options);
    } catch (error) {
      if (this.#stopping.signal.aborted) return;
      const role = step === binding.functionId ? "handler" : "condition";
      this.#api.log.warn(
        `State trigger "${binding.id}" ${role} "${step}" failed on ${event.event_type} of scope "${event.scope}" key "${event.key}": ${
          error instanceof Error ? error.message : String(error)
        }`,
        { trigger: binding.id, function: step, scope: event.scope, key: event.key },
      );
    }
  }
}

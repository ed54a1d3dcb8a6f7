/**
 * The trigger type `engine::events`: a live feed of what happens in the
 * engine, for the console and `engine logs --follow`. A trigger's function
 * receives {@link EventBatch}es of log entries, spans and changes of
 * workers, functions and triggers, one call at a time. While a call is in
 * flight, new events wait in a bounded buffer; past it the oldest are
 * dropped and counted, so a slow subscriber never slows the engine.
 *
 * Deliveries are not recorded as spans (a delivered span would otherwise
 * cause the next delivery).
 *
 * @module
 */
import { z } from "zod";
import type { EngineApi, LogEntry, TriggerBinding, TriggerTypeProvider } from "./api.ts";
import type { Engine, EngineEvent } from "./core.ts";
import { type LogStore, matches } from "./observability/logs.ts";
import type { Span, TraceStore } from "./observability/traces.ts";
import { configOf, formatsOf } from "./trigger_config.ts";

export const EVENTS_TRIGGER_TYPE = "engine::events";

/** A change of workers, functions or triggers, with the worker's name where known. */
export type EngineChange = EngineEvent & { worker_name?: string };

export type StreamEvent =
  | { kind: "log"; log: LogEntry }
  | { kind: "span"; span: Span }
  | { kind: "engine"; change: EngineChange };

/** The payload of each call of an `engine::events` trigger's function. */
export interface EventBatch {
  events: StreamEvent[];
  /** Events dropped since the previous batch because the subscriber was slow. */
  dropped: number;
}

export const EventsConfig = z.object({
  /** Which events to receive; default all. */
  kinds: z.array(z.enum(["log", "span", "engine"])).min(1).optional(),
  /** Only log entries at this level or above. */
  level: z.enum(["debug", "info", "warn", "error"]).optional(),
  /** Only log entries of this worker. */
  worker: z.string().min(1).optional(),
  /** Events held while a delivery is in flight (default 2000). */
  buffer: z.number().int().min(1).max(100_000).optional(),
}).loose();
export type EventsConfig = z.infer<typeof EventsConfig>;

/** {@link EventBatch} as a schema, for the type's `call_request_format`. */
const EventBatchSchema = z.object({
  events: z.array(z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("log"), log: z.object({}).loose() }),
    z.object({ kind: z.literal("span"), span: z.object({}).loose() }),
    z.object({ kind: z.literal("engine"), change: z.object({ type: z.string() }).loose() }),
  ])),
  dropped: z.number().int().meta({ description: "Events dropped since the previous batch" }),
}).meta({ title: "EventBatch" });

const MAX_BATCH = 500;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Gathers the events of a burst into one delivery. */
const GATHER_MS = 15;

interface Sources {
  engine: Engine;
  logs: LogStore;
  traces: TraceStore;
}

/** Provides `engine::events` through the engine's own built-in worker. */
export function registerEventsTrigger(api: EngineApi, sources: Sources): () => void {
  const live = new Map<string, Subscription>();
  const provider: TriggerTypeProvider = {
    registerTrigger(binding: TriggerBinding) {
      const config = configOf(EVENTS_TRIGGER_TYPE, EventsConfig, binding.config);
      live.get(binding.id)?.close();
      live.set(binding.id, new Subscription(api, sources, binding, config));
    },
    unregisterTrigger(binding: TriggerBinding) {
      live.get(binding.id)?.close();
      live.delete(binding.id);
    },
  };
  const unregister = api.registerTriggerType(
    EVENTS_TRIGGER_TYPE,
    "Live feed of logs, spans and worker/function/trigger changes, in batches",
    provider,
    formatsOf(EventsConfig.meta({ title: "EventsConfig" }), EventBatchSchema),
  );
  return () => {
    unregister();
    for (const s of live.values()) s.close();
    live.clear();
  };
}

class Subscription {
  #buffer: StreamEvent[] = [];
  #dropped = 0;
  #capacity: number;
  #sending = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #warned = false;
  #unsubscribe: (() => void)[] = [];

  constructor(
    readonly api: EngineApi,
    sources: Sources,
    readonly binding: TriggerBinding,
    config: EventsConfig,
  ) {
    this.#capacity = config.buffer ?? 2000;
    const kinds = new Set(config.kinds ?? ["log", "span", "engine"]);
    if (kinds.has("log")) {
      const query = {
        ...(config.level ? { level: config.level } : {}),
        ...(config.worker ? { worker: config.worker } : {}),
      };
      this.#unsubscribe.push(sources.logs.ring.subscribe((log) => {
        if (matches(log, query)) this.#add({ kind: "log", log });
      }));
    }
    if (kinds.has("span")) {
      this.#unsubscribe.push(
        sources.traces.ring.subscribe((span) => this.#add({ kind: "span", span })),
      );
    }
    if (kinds.has("engine")) {
      this.#unsubscribe.push(sources.engine.subscribe((event) => {
        const name = "workerId" in event
          ? sources.engine.workers.get(event.workerId)?.name
          : undefined;
        this.#add({ kind: "engine", change: name ? { ...event, worker_name: name } : event });
      }));
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const u of this.#unsubscribe) u();
    this.#buffer = [];
  }

  #add(event: StreamEvent): void {
    if (this.#closed) return;
    this.#buffer.push(event);
    if (this.#buffer.length > this.#capacity) {
      this.#buffer.shift();
      this.#dropped++;
    }
    if (!this.#sending && this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), GATHER_MS);
    }
  }

  async #flush(): Promise<void> {
    this.#timer = undefined;
    while (!this.#closed && this.#buffer.length > 0) {
      const batch: EventBatch = {
        events: this.#buffer.splice(0, MAX_BATCH),
        dropped: this.#dropped,
      };
      this.#dropped = 0;
      this.#sending = true;
      try {
        await this.api.call(this.binding.functionId, batch, {
          timeoutMs: DELIVERY_TIMEOUT_MS,
          trace: false,
        });
      } catch (e) {
        // Once per subscription: a warning is itself an event, which would fail again.
        if (!this.#warned && !this.#closed) {
          this.#warned = true;
          this.api.log.warn(
            `Delivering ${EVENTS_TRIGGER_TYPE} to ${this.binding.functionId} failed: ${
              (e as Error).message
            }`,
          );
        }
      } finally {
        this.#sending = false;
      }
    }
  }
}

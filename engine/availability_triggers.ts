/**
 * The trigger types `engine::workers-available` and
 * `engine::functions-available`, provided by the engine's own worker
 * (`engine`), as the reference's `iii-engine-functions` worker provides them.
 *
 * - `engine::workers-available` calls its function with
 *   `{event, worker_id, worker_name}` for every worker that connects
 *   (`worker_connected`), leaves (`worker_disconnected`) or describes itself
 *   (`worker_metadata_updated`), one call per event, in order.
 * - `engine::functions-available` calls its function with
 *   `{event: "functions_changed", functions: [...]}` (the list
 *   `engine::functions::list` answers) when functions register or go. The
 *   reference polls every 5 s; here a change is sent within
 *   {@link GATHER_MS}, and the changes of that window become one call: a
 *   worker registering 1,000 functions makes a few calls, not 1,000. While a
 *   call is in flight, only the newest list waits behind it. A list equal to
 *   the last one sent (a function registered again unchanged) is not sent.
 *   Config: `{include_internal?: boolean}`.
 *
 * The calls are the engine's own (a slow function delays only its own next
 * call, a failing one is warned about once); see `deliveries.ts`.
 *
 * @module
 */
import { z } from "zod";
import type { EngineApi, TriggerBinding } from "./api.ts";
import type { Engine, EngineEvent } from "./core.ts";
import { Deliveries } from "./deliveries.ts";
import { functionViews } from "./function_views.ts";
import { configOf, formatsOf } from "./trigger_config.ts";

export const WORKERS_AVAILABLE = "engine::workers-available";
export const FUNCTIONS_AVAILABLE = "engine::functions-available";

/** How long the changes of a burst gather into one `functions_changed` call. */
export const GATHER_MS = 100;

export interface WorkerEvent {
  event: "worker_connected" | "worker_disconnected" | "worker_metadata_updated";
  worker_id: string;
  worker_name: string | null;
}

const EVENT_NAMES = {
  worker_connected: "worker_connected",
  worker_disconnected: "worker_disconnected",
  worker_updated: "worker_metadata_updated",
} as const;

const WorkersConfig = z.object({}).loose().meta({ title: "WorkersAvailableConfig" });
const FunctionsConfig = z.object({
  include_internal: z.boolean().optional().meta({
    description: "List internal functions too (default false)",
  }),
}).loose().meta({ title: "FunctionsAvailableConfig" });
/** {@link WorkerEvent} as a schema. */
const WorkerEventSchema = z.object({
  event: z.enum(["worker_connected", "worker_disconnected", "worker_metadata_updated"]),
  worker_id: z.string(),
  worker_name: z.string().nullable(),
}).meta({ title: "WorkersAvailableCall" });
const FunctionsEventSchema = z.object({
  event: z.literal("functions_changed"),
  functions: z.array(z.object({ function_id: z.string() }).loose()).meta({
    description: "Every function, as engine::functions::list lists them",
  }),
}).meta({ title: "FunctionsAvailableCall" });

/** Registers both types on the engine's own worker; returns what stops them. */
export function registerAvailabilityTriggers(api: EngineApi, engine: Engine): () => void {
  const workers = new Map<string, Deliveries<WorkerEvent>>();
  const functions = new Map<string, { deliveries: Deliveries<unknown>; internal: boolean }>();
  // A leaving worker is already gone from `engine.workers` when its event comes: its name is kept.
  const names = new Map<string, string>();
  for (const w of engine.workers.values()) names.set(w.id, w.name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lastSent = new Map<string, string>();

  const nameOf = (id: string) => engine.workers.get(id)?.name ?? names.get(id) ?? id;
  const flush = () => {
    timer = undefined;
    const lists = new Map<boolean, { text: string; payload: unknown }>();
    for (const [id, sub] of functions) {
      let list = lists.get(sub.internal);
      if (!list) {
        const views = functionViews(engine.functions, nameOf, { include_internal: sub.internal });
        const payload = { event: "functions_changed", functions: views };
        lists.set(sub.internal, list = { text: JSON.stringify(views), payload });
      }
      if (lastSent.get(id) === list.text) continue;
      lastSent.set(id, list.text);
      sub.deliveries.push(list.payload);
    }
  };

  const unsubscribe = engine.subscribe((event: EngineEvent) => {
    if (event.type === "functions_changed") {
      if (functions.size > 0 && timer === undefined) timer = setTimeout(flush, GATHER_MS);
      return;
    }
    if (event.type === "triggers_changed") return;
    const worker = engine.workers.get(event.workerId);
    if (worker) names.set(worker.id, worker.name);
    const payload: WorkerEvent = {
      event: EVENT_NAMES[event.type],
      worker_id: event.workerId,
      worker_name: worker?.name ?? names.get(event.workerId) ?? null,
    };
    if (event.type === "worker_disconnected") names.delete(event.workerId);
    for (const d of workers.values()) d.push(payload);
  });

  const delivering = (b: TriggerBinding) => ({
    type: b.type,
    triggerId: b.id,
    functionId: b.functionId,
  });
  const stopWorkers = api.registerTriggerType(
    WORKERS_AVAILABLE,
    "Fires when a worker connects, disconnects or updates its metadata",
    {
      registerTrigger(b) {
        configOf(WORKERS_AVAILABLE, WorkersConfig, b.config);
        workers.get(b.id)?.close();
        // Events are few (one per connection) but each matters: up to 16 calls at once.
        workers.set(b.id, new Deliveries(api, { ...delivering(b), concurrency: 16 }));
      },
      unregisterTrigger(b) {
        workers.get(b.id)?.close();
        workers.delete(b.id);
      },
    },
    formatsOf(WorkersConfig, WorkerEventSchema),
  );
  const stopFunctions = api.registerTriggerType(
    FUNCTIONS_AVAILABLE,
    "Fires with the function list when functions register or unregister (changes coalesced)",
    {
      registerTrigger(b) {
        const config = configOf(FUNCTIONS_AVAILABLE, FunctionsConfig, b.config);
        functions.get(b.id)?.deliveries.close();
        lastSent.delete(b.id);
        // The list as it is now counts as sent: only changes from here on are news.
        const views = functionViews(engine.functions, nameOf, {
          include_internal: config.include_internal ?? false,
        });
        lastSent.set(b.id, JSON.stringify(views));
        functions.set(b.id, {
          deliveries: new Deliveries(api, { ...delivering(b), latestOnly: true }),
          internal: config.include_internal ?? false,
        });
      },
      unregisterTrigger(b) {
        functions.get(b.id)?.deliveries.close();
        functions.delete(b.id);
        lastSent.delete(b.id);
      },
    },
    formatsOf(FunctionsConfig, FunctionsEventSchema),
  );
  return () => {
    unsubscribe();
    clearTimeout(timer);
    stopWorkers();
    stopFunctions();
    for (const d of workers.values()) d.close();
    for (const s of functions.values()) s.deliveries.close();
    workers.clear();
    functions.clear();
  };
}

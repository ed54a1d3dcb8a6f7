/**
 * The `engine::*` functions, answered by the engine itself through an
 * in-process worker named `engine`. The CLI, the console and workers read
 * the running system through them, so anything the console shows a script
 * can read too.
 *
 * @module
 */
import { z } from "zod";
import { CallError, type EngineApi, type InvocationContext, type LogLevel } from "./api.ts";
import type { Engine, WorkerConn } from "./core.ts";
import type { LogStore } from "./observability/logs.ts";
import { ErrorCode } from "./protocol/errors.ts";
import { VERSION } from "./version.ts";
import { registerAvailabilityTriggers } from "./availability_triggers.ts";
import { functionView, functionViews } from "./function_views.ts";
import { registerLogTrigger } from "./log_trigger.ts";
import { configSummary } from "./trigger_summary.ts";
import { metadataProblem } from "./worker_metadata.ts";
import { telemetryView } from "./worker_telemetry.ts";

export interface BuiltinsContext {
  engine: Engine;
  logs: LogStore;
  startedAt: number;
  /** Extra status per worker name (supervised processes, built-in workers). */
  workerStatus?: (name: string) => Record<string, unknown> | undefined;
}

type Handler<S extends z.ZodType> = (input: z.infer<S>, ctx: InvocationContext) => unknown;

function fn<S extends z.ZodType>(id: string, schema: S, handler: Handler<S>, code?: string) {
  return [id, (payload: unknown, ctx: InvocationContext) => {
    return handler(parseInput(id, schema, payload, code), ctx);
  }] as const;
}

/** The codes of the reference's `engine::*::info` functions. */
export const InfoError = { NotFound: "NOT_FOUND", InvalidArguments: "INVALID_ARGUMENTS" } as const;

/** A `NOT_FOUND` error of `id` for the `what`s asked for that do not exist. */
function notFound(id: string, what: string, missing: string[]): CallError {
  const plural = missing.length > 1 ? "s" : "";
  return new CallError({
    code: InfoError.NotFound,
    message: `Unknown ${what}${plural} for ${id}: ${missing.map((m) => `"${m}"`).join(", ")}`,
  });
}

/** `all` narrowed to the items whose `key` is `wanted` (all of them when it is undefined). */
function only<T>(id: string, what: string, all: T[], key: (t: T) => string, wanted?: string): T[] {
  if (wanted === undefined) return all;
  const found = all.filter((t) => key(t) === wanted);
  if (found.length === 0) throw notFound(id, what, [wanted]);
  return found;
}

/**
 * `payload` (absent: `{}`) read by `schema`, for the engine's own function
 * `id`; otherwise an `INVALID_ARGUMENT` error naming the function and field
 * (`Invalid input for engine::logs::list: field "limit": Too small: …`).
 */
export function parseInput<S extends z.ZodType>(
  id: string,
  schema: S,
  payload: unknown,
  code: string = ErrorCode.InvalidArgument,
): z.infer<S> {
  const parsed = schema.safeParse(payload ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length ? `field "${issue.path.join(".")}"` : "payload";
  throw new CallError({
    code,
    message: `Invalid input for ${id}: ${field}: ${issue.message}`,
  });
}

const anyObject = z.object({}).loose();
/** The most ids one `engine::functions::info` call takes, as in the reference. */
const MAX_INFO_IDS = 32;
const logInput = z.object({
  message: z.string(),
  data: z.unknown().optional(),
  function_id: z.string().optional(),
  trace_id: z.string().optional(),
  span_id: z.string().optional(),
  service_name: z.string().optional(),
}).loose();

/**
 * Registers the `engine::*` functions and the engine's own trigger types
 * (`engine::workers-available`, `engine::functions-available`, `log`) on the
 * engine's worker; returns what stops the trigger types.
 */
export function registerBuiltins(api: EngineApi, c: BuiltinsContext): () => void {
  const { engine, logs } = c;
  const workerView = (w: WorkerConn, inFlight: Map<string, number>) => {
    const m = w.metadata;
    return {
      id: w.id,
      name: w.name,
      kind: w.kind,
      runtime: m.runtime ?? (w.kind === "builtin" ? "engine" : null),
      version: m.version ?? null,
      sdk: m.sdk ?? (m.telemetry ? "iii-sdk" : null),
      description: m.description ?? null,
      os: m.os ?? null,
      pid: m.pid ?? null,
      // As the reference's WorkerInfo: iii-sdk sends $III_ISOLATION (or null) and its telemetry.
      isolation: m.isolation ?? null,
      telemetry: telemetryView(m.telemetry),
      ip_address: w.remoteAddress ?? null,
      status: "connected",
      connected_at_ms: w.connectedAt,
      function_count: engine.functions.countOf(w.id),
      functions: engine.functions.ofOwner(w.id).sort(),
      active_invocations: inFlight.get(w.id) ?? 0,
      ...(c.workerStatus?.(w.name) ?? {}),
    };
  };
  const nameOf = (workerId: string) => engine.workers.get(workerId)?.name ?? workerId;
  const isOwn = (workerId: string) => {
    const w = engine.workers.get(workerId);
    return w?.kind === "builtin" && w.name === "engine";
  };
  const isInternal = (functionId: string) =>
    engine.functions.replicas(functionId)[0]?.info.metadata?.internal === true;
  /**
   * Calls doing work, by function and by target worker id: not `self`, not
   * internal ones, not the engine's own reads (its `engine` worker answers them at once).
   */
  const busy = (self: string) => {
    const byFunction = new Map<string, number>();
    const byTarget = new Map<string, number>();
    for (const id of engine.invocations.ids()) {
      const inv = engine.invocations.get(id);
      if (!inv || id === self || isInternal(inv.functionId) || isOwn(inv.target)) continue;
      byFunction.set(inv.functionId, (byFunction.get(inv.functionId) ?? 0) + 1);
      byTarget.set(inv.target, (byTarget.get(inv.target) ?? 0) + 1);
    }
    return { byFunction, byTarget };
  };

  const workers = (ctx: InvocationContext) => {
    const { byTarget } = busy(ctx.invocationId);
    return [...engine.workers.values()].map((w) => workerView(w, byTarget));
  };
  const registeredTriggers = () =>
    engine.triggers.all().map((t) => ({
      id: t.id,
      trigger_type: t.type,
      function_id: t.functionId,
      worker_name: nameOf(t.owner),
      config: t.config,
      config_summary: configSummary(t.type, t.config),
      status: t.status,
      internal: isInternal(t.functionId),
      error: t.error ?? null,
    }));
  const triggerTypes = () =>
    engine.triggers.types().map((t) => ({
      id: t.id,
      description: t.description,
      worker_name: nameOf(t.owner),
      ...t.formats, // trigger_request_format, call_request_format (and ours: call_response_format)
    }));

  const levels: LogLevel[] = ["debug", "info", "warn", "error"];
  const entries = [
    fn("engine::workers::register", anyObject, (input, ctx) => {
      const conn = ctx.callerWorkerId ? engine.workers.get(ctx.callerWorkerId) : undefined;
      if (!conn) return { success: true };
      const problem = metadataProblem(conn.metadata, input);
      if (problem !== undefined) {
        // iii-sdk sends it as a void call: the log is where its author sees why.
        api.log.warn(`Worker "${conn.name}" sent metadata the engine does not keep: ${problem}`);
        throw new CallError({
          code: ErrorCode.InvalidArgument,
          message: `Invalid input for engine::workers::register: ${problem}`,
        });
      }
      engine.describeWorker(conn.id, input);
      return { success: true };
    }),
    fn("engine::workers::list", anyObject, (_input, ctx) => ({ workers: workers(ctx) })),
    fn(
      "engine::workers::info",
      z.object({ worker_id: z.string().optional(), name: z.string().optional() }).loose(),
      (q, ctx) => {
        const id = "engine::workers::info";
        const byId = only(id, "worker id", workers(ctx), (w) => w.id, q.worker_id);
        return { workers: only(id, "worker name", byId, (w) => w.name, q.name) };
      },
      InfoError.InvalidArguments,
    ),
    fn(
      "engine::functions::list",
      z.object({
        search: z.string().optional(),
        prefix: z.string().optional(),
        worker: z.string().optional(),
        workers: z.array(z.string()).optional(),
        include_internal: z.boolean().optional(),
      }).loose(),
      (q, ctx) => {
        const { byFunction } = busy(ctx.invocationId);
        const functions = functionViews(engine.functions, nameOf, q).map((
          { internal: _, ...v },
        ) => ({ ...v, in_flight: byFunction.get(v.function_id) ?? 0 }));
        return { functions };
      },
    ),
    fn(
      "engine::functions::info",
      z.object({
        function_id: z.string().min(1).optional(),
        function_ids: z.array(z.string().min(1)).min(1).max(MAX_INFO_IDS).optional(),
      }).loose().refine((q) => (q.function_id === undefined) !== (q.function_ids === undefined), {
        message: "give either function_id or function_ids (at most 32)",
      }),
      (q, ctx) => {
        const ids = q.function_ids ?? [q.function_id!];
        const missing = ids.filter((id) => !engine.functions.has(id));
        if (missing.length > 0) throw notFound("engine::functions::info", "function id", missing);
        const { byFunction } = busy(ctx.invocationId);
        const triggers = registeredTriggers();
        return {
          functions: ids.map((id) => ({
            ...functionView(id, engine.functions.replicas(id), nameOf),
            in_flight: byFunction.get(id) ?? 0,
            registered_triggers: triggers.filter((t) => t.function_id === id),
          })),
        };
      },
      InfoError.InvalidArguments,
    ),
    fn("engine::registered-triggers::list", anyObject, () => ({
      registered_triggers: registeredTriggers(),
    })),
    fn(
      "engine::registered-triggers::info",
      z.object({ id: z.string().optional() }).loose(),
      (q) => ({
        registered_triggers: only(
          "engine::registered-triggers::info",
          "trigger id",
          registeredTriggers(),
          (t) => t.id,
          q.id,
        ),
      }),
      InfoError.InvalidArguments,
    ),
    fn("engine::triggers::list", anyObject, () => ({ triggers: triggerTypes() })),
    fn(
      "engine::triggers::info",
      z.object({ id: z.string().optional() }).loose(),
      (q) => ({
        triggers: only("engine::triggers::info", "trigger type", triggerTypes(), (t) => t.id, q.id),
      }),
      InfoError.InvalidArguments,
    ),
    fn("engine::health::check", anyObject, () => ({
      status: "ok",
      version: VERSION,
      uptime_ms: Date.now() - c.startedAt,
      workers: engine.workers.size,
      functions: engine.functions.size,
      invocations_in_flight: engine.invocations.size,
    })),
    // Counts the calls doing work: not this one, nor internal ones (logging, listeners).
    fn("engine::invocations::stats", anyObject, (_input, ctx) => {
      const { byFunction, byTarget } = busy(ctx.invocationId);
      // By name in a Map: in a plain object, a worker named "constructor" read Object itself and
      // one named "__proto__" set nothing. Object.fromEntries makes each name an own property.
      const perWorker = new Map<string, number>();
      for (const [target, n] of byTarget) {
        perWorker.set(nameOf(target), (perWorker.get(nameOf(target)) ?? 0) + n);
      }
      return {
        in_flight: [...byFunction.values()].reduce((a, b) => a + b, 0),
        per_function: Object.fromEntries(byFunction),
        per_worker: Object.fromEntries(perWorker),
      };
    }),
    fn(
      "engine::logs::list",
      z.object({
        level: z.enum(["debug", "info", "warn", "error"]).optional(),
        worker: z.string().optional(),
        function_id: z.string().optional(),
        trace_id: z.string().optional(),
        text: z.string().optional(),
        limit: z.number().int().positive().max(100_000).optional(),
      }).loose(),
      (q) => ({
        logs: logs.query({
          ...(q.level ? { level: q.level } : {}),
          ...(q.worker ? { worker: q.worker } : {}),
          ...(q.function_id ? { function: q.function_id } : {}),
          ...(q.trace_id ? { traceId: q.trace_id } : {}),
          ...(q.text ? { text: q.text } : {}),
          limit: q.limit ?? 1000,
        }),
      }),
    ),
    fn(
      "engine::traces::list",
      z.object({ limit: z.number().int().positive().max(10_000).optional() }).loose(),
      (q) => ({ traces: engine.traces.recent(q.limit ?? 100) }),
    ),
    fn(
      "engine::traces::get",
      z.object({ trace_id: z.string().min(1) }).loose(),
      (q) => ({ trace_id: q.trace_id, spans: engine.traces.trace(q.trace_id) }),
    ),
    ...levels.map((level) =>
      fn(`engine::log::${level}`, logInput, (input, ctx) => {
        const worker = ctx.callerWorkerId ? nameOf(ctx.callerWorkerId) : "engine";
        logs.write({
          time: Date.now(),
          level,
          message: input.message,
          source: worker,
          worker,
          ...(input.function_id ? { function: input.function_id } : {}),
          ...(input.trace_id ? { traceId: input.trace_id } : {}),
          ...(input.span_id ? { spanId: input.span_id } : {}),
          ...(input.data !== undefined ? { data: input.data } : {}),
        });
        return null;
      })
    ),
  ];
  for (const [id, handler] of entries) {
    api.registerFunction(id, handler, { metadata: { internal: id.startsWith("engine::log::") } });
  }
  const stopAvailability = registerAvailabilityTriggers(api, engine);
  const stopLog = registerLogTrigger(api, engine, logs);
  return () => {
    stopAvailability();
    stopLog();
  };
}

/**
 * How the engine's own functions show a registered function: one shape for
 * `engine::functions::list`, `engine::functions::info` and the
 * `engine::functions-available` trigger type. Pure: the registry and a way
 * to name workers in, plain objects out.
 *
 * @module
 */
import type { FunctionRegistry, Replica } from "./registry/functions.ts";

export interface FunctionView {
  function_id: string;
  worker_name: string | undefined;
  workers: string[];
  replicas: number;
  description: string | null;
  metadata: Record<string, unknown> | null;
  request_format: unknown;
  response_format: unknown;
  internal: boolean;
}

export interface FunctionFilter {
  search?: string | undefined;
  prefix?: string | undefined;
  /** A worker name or id that provides it. */
  worker?: string | undefined;
  /** Any of these worker names or ids provides it. */
  workers?: readonly string[] | undefined;
  include_internal?: boolean | undefined;
}

/** `id` as shown to scripts, given its replicas (first one registered first). */
export function functionView(
  id: string,
  replicas: readonly Replica<string>[],
  nameOf: (workerId: string) => string,
): FunctionView {
  const first = replicas[0];
  return {
    function_id: id,
    worker_name: first ? nameOf(first.owner) : undefined,
    workers: replicas.map((r) => nameOf(r.owner)),
    replicas: replicas.length,
    description: first?.info.description ?? null,
    metadata: first?.info.metadata ?? null,
    request_format: first?.info.request_format ?? null,
    response_format: first?.info.response_format ?? null,
    internal: first?.info.metadata?.internal === true,
  };
}

/** The functions `filter` selects, sorted by id. */
export function functionViews(
  functions: FunctionRegistry<string>,
  nameOf: (workerId: string) => string,
  filter: FunctionFilter = {},
): FunctionView[] {
  const out: FunctionView[] = [];
  const wanted = filter.workers ? new Set(filter.workers) : undefined;
  for (const [id, replicas] of functions.entries()) {
    if (filter.prefix && !id.startsWith(filter.prefix)) continue;
    if (filter.search && !id.includes(filter.search)) continue;
    const view = functionView(id, replicas, nameOf);
    if (view.internal && !filter.include_internal) continue;
    const providedBy = (w: string) =>
      replicas.some((r) => r.owner === w) || view.workers.includes(w);
    if (filter.worker && !providedBy(filter.worker)) continue;
    if (wanted && ![...wanted].some(providedBy)) continue;
    out.push(view);
  }
  return out.sort((a, b) => a.function_id.localeCompare(b.function_id));
}

/**
 * What waits and what runs: HTTP requests waiting for a concurrency slot
 * (from `engine-http`'s status in `engine::workers::list`), calls in flight
 * per function and per worker (`engine::invocations::stats`), and the
 * durable queues when a queue worker answers `engine::queue::list`.
 *
 * @module
 */
import { type EngineLink, LinkError } from "./link.ts";

export interface QueuesSnapshot {
  http: { worker: string; in_flight: number; waiting: number } | null;
  invocations: {
    in_flight: number;
    per_function: Record<string, number>;
    per_worker: Record<string, number>;
  };
  /** `null` when no queue worker is installed. */
  durable: { adapter?: string; queues: DurableQueue[] } | null;
}

export interface DurableQueue {
  name: string;
  depth: number;
  in_flight: number;
  dead_letters: number;
}

interface WorkerRow {
  name: string;
  in_flight?: unknown;
  waiting?: unknown;
}

export async function queuesSnapshot(link: EngineLink): Promise<QueuesSnapshot> {
  // First and alone, so the console's other reads are not counted as calls in flight.
  const invocations = await link.call("engine::invocations::stats", {}) as QueuesSnapshot[
    "invocations"
  ];
  const [workers, durable] = await Promise.all([
    link.call("engine::workers::list", {}) as Promise<{ workers: WorkerRow[] }>,
    (link.call("engine::queue::list", {}) as Promise<QueuesSnapshot["durable"]>).catch((e) => {
      if (e instanceof LinkError && e.code === "function_not_found") return null;
      throw e;
    }),
  ]);
  const http = workers.workers.find((w) => typeof w.waiting === "number");
  return {
    http: http
      ? { worker: http.name, in_flight: Number(http.in_flight ?? 0), waiting: Number(http.waiting) }
      : null,
    invocations: {
      in_flight: invocations.in_flight,
      per_function: invocations.per_function,
      per_worker: invocations.per_worker,
    },
    durable,
  };
}

/**
 * Whether the engine is ready for new work, as `GET /health` and
 * `GET /health/ready` on its port say it (`transport/route.ts`):
 *
 * | status     | when                                                            | `/health` | `/health/ready` |
 * | ---------- | --------------------------------------------------------------- | --------- | --------------- |
 * | `ok`       | serving, every built-in worker of the config running            | 200       | 200             |
 * | `starting` | listening, the config's workers not all started yet             | 200       | 503             |
 * | `degraded` | a built-in worker of the config could not start (a reload's)    | 200       | 503             |
 * | `stopping` | a stop signal came: the engine drains its work and exits        | 200       | 503             |
 *
 * Both answer without a token, so the body holds counts and built-in worker
 * names only: never an error message (it may hold a host, a path or a URL).
 *
 * @example
 * ```ts
 * import { Readiness } from "./health.ts";
 * const health = new Readiness(false);
 * health.serving();
 * health.report().status; // "ok"
 * ```
 * @module
 */

export type HealthStatus = "ok" | "starting" | "degraded" | "stopping";

/** A built-in worker of the config that is not running, as a source reports it. */
export interface WorkerProblem {
  name: string;
  /** Why, in full: read here to pick a short reason, never shown as it is. */
  error: string;
  /** When it failed, in ms since the epoch. */
  at?: number;
}

/** What `/health` shows of a {@link WorkerProblem}: a reason from a fixed list. */
export interface FailedWorker {
  name: string;
  reason: "port in use" | "failed to start";
  since?: string;
}

export interface HealthReport {
  status: HealthStatus;
  /** Only with `degraded`. */
  failed_workers?: FailedWorker[];
}

export class Readiness {
  #phase: "starting" | "serving" | "stopping";
  #sources: (() => readonly WorkerProblem[])[] = [];

  /** `ready`: serving at once; else `starting` until {@link serving}. */
  constructor(ready = true) {
    this.#phase = ready ? "serving" : "starting";
  }

  /** Start-up is over. Once stopping, the engine stays so. */
  serving(): void {
    if (this.#phase === "starting") this.#phase = "serving";
  }

  /** A stop began: not ready from now on. */
  stopping(): void {
    this.#phase = "stopping";
  }

  /** Adds a source of workers that are not running (the config reload's failed starts). */
  watch(source: () => readonly WorkerProblem[]): void {
    this.#sources.push(source);
  }

  get ready(): boolean {
    return this.report().status === "ok";
  }

  report(): HealthReport {
    if (this.#phase !== "serving") return { status: this.#phase };
    const problems = this.#sources.flatMap((source) => source());
    if (problems.length === 0) return { status: "ok" };
    return { status: "degraded", failed_workers: problems.map(shown) };
  }
}

function shown(problem: WorkerProblem): FailedWorker {
  const reason = /address already in use|AddrInUse/i.test(problem.error)
    ? "port in use"
    : "failed to start";
  const at = problem.at;
  return {
    name: problem.name,
    reason,
    ...(at !== undefined ? { since: new Date(at).toISOString() } : {}),
  };
}

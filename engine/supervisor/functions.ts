/**
 * The supervisor as seen from outside the engine: two `engine::*` functions,
 * registered by `cli/start.ts` next to the other built-in functions.
 *
 * | Function | Payload | Result |
 * |---|---|---|
 * | `engine::supervisor::list` | `{}` | `{config, workers: [WorkerStatus & {connected, function_count, functions}], failed_builtins: [{name, error, at}]}` |
 * | `engine::supervisor::restart` | `{name}` | `{restarted: boolean}` |
 *
 * A supervised worker's connection is found by name (the engine gives each
 * process `ENGINE_WORKER_NAME`, the SDKs' default worker name) or, for a
 * worker that picked another name, by its pid being in the worker's
 * process group.
 *
 * @module
 */

import { CallError, type EngineApi } from "../api.ts";
import type { Engine, WorkerConn } from "../core.ts";
import { ErrorCode } from "../protocol/errors.ts";
import { processGroupOf } from "./group.ts";
import type { WorkerStatus } from "./process.ts";
import type { Supervisor } from "./supervisor.ts";

/** A built-in worker of the config that the engine could not start (a port in use, say). */
export interface BuiltinFailure {
  name: string;
  error: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** A supervised worker with what the engine knows of its connection. */
export interface SupervisedView extends WorkerStatus {
  connected: boolean;
  function_count: number;
  functions: string[];
}

export interface SupervisorFunctionsContext {
  supervisor: Supervisor;
  engine: Engine;
  /** The config file the engine runs, absolute. */
  configFile: string;
  /** Built-in workers of the config that failed to start when the config changed. */
  builtinFailures?: () => BuiltinFailure[];
}

/** The connections that belong to supervised worker `status`. */
export function connectionsOf(engine: Engine, status: WorkerStatus): WorkerConn[] {
  return [...engine.workers.values()].filter((conn) => {
    if (conn.kind !== "websocket") return false;
    if (conn.name === status.name) return true;
    const pid = conn.metadata.pid;
    return status.pid !== null && typeof pid === "number" &&
      (pid === status.pid || processGroupOf(pid) === status.pid);
  });
}

/** A supervised worker's status joined with its connections' functions. */
export function supervisedView(engine: Engine, status: WorkerStatus): SupervisedView {
  const conns = connectionsOf(engine, status);
  const functions = [...new Set(conns.flatMap((conn) => engine.functions.ofOwner(conn.id)))].sort();
  return { ...status, connected: conns.length > 0, function_count: functions.length, functions };
}

export function registerSupervisorFunctions(api: EngineApi, c: SupervisorFunctionsContext): void {
  api.registerFunction("engine::supervisor::list", () => ({
    config: c.configFile,
    workers: c.supervisor.list().map((status) => supervisedView(c.engine, status)),
    failed_builtins: c.builtinFailures?.() ?? [],
  }), { description: "Local workers the engine starts from its config, with their status" });
  api.registerFunction("engine::supervisor::restart", async (payload) => {
    const name = (payload as { name?: unknown } | null)?.name;
    if (typeof name !== "string" || name === "") {
      throw new CallError({
        code: ErrorCode.InvalidArgument,
        message: 'Invalid input for engine::supervisor::restart: field "name": expected a string',
      });
    }
    return { restarted: await c.supervisor.restart(name) };
  }, { description: "Restarts a local worker (after its dependencies were reinstalled)" });
}

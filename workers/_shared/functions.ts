/**
 * The functions a built-in worker provides, and registering them with the
 * engine in one step.
 *
 * @module
 */

import type { EngineApi, FunctionHandler } from "../../engine/api.ts";

/** One function of a built-in worker: what it does and its handler. */
export interface WorkerFunction {
  description: string;
  handler: FunctionHandler;
}

/** Registers `functions` (by id) with the engine; returns their unregister. */
export function registerFunctions(
  api: Pick<EngineApi, "registerFunction">,
  functions: Record<string, WorkerFunction>,
): () => void {
  const unregisters = Object.entries(functions).map(([id, fn]) =>
    api.registerFunction(id, fn.handler, { description: fn.description })
  );
  return () => unregisters.forEach((unregister) => unregister());
}

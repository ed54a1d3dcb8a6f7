/**
 * What `engine trigger` adds when the function it called is not found: the
 * registered id it is a typo of, the built-in worker that provides it, a
 * local worker that is still starting or has crashed, or where the list of
 * functions is.
 *
 * @module
 */

import type { EngineClient } from "./engine_url.ts";
import { closest } from "../engine/suggest.ts";

const LIST = '"engine trigger --function-id=engine::functions::list" lists the functions';

/** The namespaces of the built-in workers' functions, and the worker providing each. */
const BUILTIN_NAMESPACES: readonly [prefix: string, worker: string][] = [
  ["engine::queue::", "engine-queue"],
  ["state::", "engine-state"],
];

/** A local worker as `engine::supervisor::list` shows it (the fields read here). */
interface Supervised {
  name: string;
  status: string;
  connected: boolean;
}

/** The hint for a call of `functionId` that failed with `function_not_found`. */
export async function notFoundHint(client: EngineClient, functionId: string): Promise<string> {
  const ids = await ask<{ functions: { function_id: string }[] }>(
    client,
    "engine::functions::list",
  );
  const meant = ids && closest(functionId, ids.functions.map((f) => f.function_id));
  if (meant) return `Did you mean "${meant}"? (${LIST})`;
  const supervised = await ask<{ workers: Supervised[]; failed_builtins?: { name: string }[] }>(
    client,
    "engine::supervisor::list",
  );
  const builtin = BUILTIN_NAMESPACES.find(([prefix]) => functionId.startsWith(prefix));
  if (builtin) {
    const [prefix, worker] = builtin;
    const named = `"${functionId}" is a function of the built-in worker "${worker}"`;
    if (supervised?.failed_builtins?.some((f) => f.name === worker)) {
      return `${named}, which could not start: "engine worker list" shows why`;
    }
    if (ids && !ids.functions.some((f) => f.function_id.startsWith(prefix))) {
      return `${named}, which this engine does not run: add it with "engine worker add ${worker}"`;
    }
  }
  const waiting = supervised?.workers.filter((w) => w.status !== "stopped" && !w.connected) ?? [];
  const crashed = waiting.filter((w) => w.status === "crashed").map((w) => `"${w.name}"`);
  const starting = waiting.filter((w) => w.status !== "crashed").map((w) => `"${w.name}"`);
  if (starting.length > 0) {
    return `${list(starting)} ${starting.length === 1 ? "is" : "are"} still starting: ` +
      `try again in a moment ("engine worker list" shows how ${
        starting.length === 1 ? "it is" : "they are"
      } doing)`;
  }
  if (crashed.length > 0) {
    return `${list(crashed)} crashed and ${crashed.length === 1 ? "waits" : "wait"} ` +
      `for a restart: "engine worker list" shows why`;
  }
  if (!/^[\w-]+(::[\w-]+)+$/.test(functionId)) {
    return `A function id has the form <namespace>::<name>, e.g. math::add (${LIST})`;
  }
  return `No connected worker registers it (${LIST})`;
}

function list(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The result of a built-in function, or `undefined` when the engine does not answer it. */
async function ask<T>(client: EngineClient, functionId: string): Promise<T | undefined> {
  try {
    return await client.call(functionId, {}, 5000) as T;
  } catch {
    return undefined;
  }
}

/**
 * What `engine trigger` adds when the function it called is not found: the
 * registered id it is a typo of, a local worker that is still starting or
 * has crashed, or where the list of functions is.
 *
 * @module
 */

import type { EngineClient } from "./engine_url.ts";
import { closest } from "../engine/suggest.ts";

const LIST = '"engine trigger --function-id=engine::functions::list" lists the functions';

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
  const supervised = await ask<{ workers: Supervised[] }>(client, "engine::supervisor::list");
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

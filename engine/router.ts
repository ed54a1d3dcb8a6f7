/**
 * Where a call goes. Pure: given the registry and how busy each owner is,
 * picks the replica with the fewest calls in flight (ties: the first
 * registered, rotated by `tick` so equal replicas share the load), and how
 * many replicas there were to choose from.
 *
 * @module
 */
import type { FunctionInfo, FunctionRegistry } from "./registry/functions.ts";

/** Where the call goes, with what the owner registered the function with. */
export type RouteOutcome<O> =
  | { kind: "routed"; owner: O; info: FunctionInfo; replicas: number }
  | { kind: "not_found" };

export function route<O>(
  registry: FunctionRegistry<O>,
  functionId: string,
  inFlight: (owner: O) => number,
  tick = 0,
): RouteOutcome<O> {
  const replicas = registry.replicas(functionId);
  const n = replicas.length;
  if (n === 0) return { kind: "not_found" };
  let best = replicas[tick % n]!;
  let bestLoad = n === 1 ? 0 : inFlight(best.owner);
  for (let k = 1; k < n && bestLoad > 0; k++) {
    const replica = replicas[(tick + k) % n]!;
    const load = inFlight(replica.owner);
    if (load < bestLoad) {
      best = replica;
      bestLoad = load;
    }
  }
  return { kind: "routed", owner: best.owner, info: best.info, replicas: n };
}

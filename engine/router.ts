/**
 * Where a call goes. Pure: given the registry and how busy each owner is,
 * picks the replica with the fewest calls in flight (ties: the first
 * registered, rotated by `tick` so equal replicas share the load).
 *
 * @module
 */
import type { FunctionRegistry } from "./registry/functions.ts";

export type RouteOutcome<O> =
  | { kind: "routed"; owner: O }
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
  if (n === 1) return { kind: "routed", owner: replicas[0]!.owner };
  let best = replicas[tick % n]!.owner;
  let bestLoad = inFlight(best);
  for (let k = 1; k < n && bestLoad > 0; k++) {
    const owner = replicas[(tick + k) % n]!.owner;
    const load = inFlight(owner);
    if (load < bestLoad) {
      best = owner;
      bestLoad = load;
    }
  }
  return { kind: "routed", owner: best };
}

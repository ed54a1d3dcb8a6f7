/**
 * The `http` trigger type: validates each trigger's config, keeps the live
 * route table, and swaps in a freshly built matcher when the table changes.
 * A refused trigger throws with the exact reason, which the engine sends back
 * to the registering worker in its `triggerregistrationresult`.
 *
 * @module
 */
import {
  type TriggerBinding,
  TriggerTakenError,
  type TriggerTypeProvider,
} from "../../engine/api.ts";
import { checkFunctionId } from "../../engine/protocol/ids.ts";
import { HTTP_METHODS, type HttpMethod, isHttpMethod } from "./config.ts";
import { buildMatcher, type Matcher } from "./matcher.ts";
import { parsePattern, type Route, RouteTable, type TableOutcome } from "./routes.ts";

export const TRIGGER_TYPE = "http";
export const TRIGGER_DESCRIPTION = "HTTP endpoints served by engine-http";

/**
 * The routes the server reads: the table, changed in place, and the matcher
 * built from it. A change drops the matcher; the next one is built at the
 * first request after it, so registering a thousand triggers in a row builds
 * it once. A built matcher is never changed: a request holding it finishes
 * with it while the next one is swapped in.
 */
export class LiveRoutes {
  readonly #table = new RouteTable();
  #matcher: Matcher | undefined;

  /** The live routes (read it; change it through {@link add} and {@link remove}). */
  get table(): RouteTable {
    return this.#table;
  }

  /** The matcher for the current table. */
  matcher(): Matcher {
    return this.#matcher ??= buildMatcher(this.#table);
  }

  /** Adds or replaces a trigger's route; throws with the reason when it is refused. */
  add(route: Route): void {
    this.#apply(this.#table.add(route));
  }

  /** Removes a trigger's route, if it has one. */
  remove(triggerId: string): void {
    this.#apply(this.#table.remove(triggerId));
  }

  #apply(outcome: TableOutcome): void {
    // Every refusal of the table is a clash with a live route: offered again when a route goes.
    if (outcome.kind === "refused") throw new TriggerTakenError(outcome.reason);
    if (outcome.kind === "changed") this.#matcher = undefined;
  }
}

/** The `http` trigger-type provider over `routes`. */
export function httpTriggerProvider(routes: LiveRoutes): TriggerTypeProvider {
  return {
    registerTrigger(binding) {
      routes.add(routeOf(binding));
    },
    unregisterTrigger(binding) {
      routes.remove(binding.id);
    },
  };
}

/** Validates a trigger's config into a route; throws an Error naming the problem. */
export function routeOf(binding: TriggerBinding): Route {
  const config = binding.config;
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    fail(`config must be a map with api_path and http_method, got ${describe(config)}`);
  }
  const raw = config as Record<string, unknown>;
  if (raw.api_path === undefined) fail("api_path is required");
  if (typeof raw.api_path !== "string") {
    fail(`api_path must be a string, got ${describe(raw.api_path)}`);
  }
  const parsed = parsePattern(raw.api_path);
  if (parsed.kind === "invalid") fail(parsed.reason);
  const route: Route = {
    ...parsed.value,
    triggerId: binding.id,
    workerId: binding.workerId,
    functionId: binding.functionId,
    method: methodOf(raw.http_method),
    middlewareFunctionIds: functionIds(raw.middleware_function_ids),
  };
  if (raw.condition_function_id !== undefined) {
    route.conditionFunctionId = functionId("condition_function_id", raw.condition_function_id);
  }
  if (binding.metadata !== undefined) route.metadata = binding.metadata;
  return route;
}

/** `http_method`, case-insensitive; GET when absent, as in the reference. */
function methodOf(value: unknown): HttpMethod {
  if (value === undefined) return "GET";
  const upper = typeof value === "string" ? value.toUpperCase() : undefined;
  if (upper !== undefined && isHttpMethod(upper)) return upper;
  return fail(
    `http_method ${describe(value)} is not supported: use one of ${HTTP_METHODS.join(", ")}`,
  );
}

function functionIds(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail(`middleware_function_ids must be a list of function ids, got ${describe(value)}`);
  }
  return value.map((id, index) => functionId(`middleware_function_ids[${index}]`, id));
}

/** A function id (`a::b`): one that can never be registered would answer 503 forever. */
function functionId(field: string, value: unknown): string {
  if (typeof value !== "string" || value === "") {
    fail(`${field} must be a function id, got ${describe(value)}`);
  }
  const problem = checkFunctionId(value);
  if (problem !== undefined) fail(`${field}: ${problem}`);
  return value;
}

function fail(reason: string): never {
  throw new Error(`Invalid http trigger config: ${reason}`);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a map";
  return JSON.stringify(value);
}

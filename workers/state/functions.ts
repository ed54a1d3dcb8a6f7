/**
 * The `state::*` functions: payloads in, a {@link StateStore} call, results
 * and change events out. Shapes follow the reference (see README.md).
 *
 * @module
 */

import type { InvocationContext, Logger } from "../../engine/api.ts";
import { invalidInput, storeGuard } from "../_shared/call_errors.ts";
import type { WorkerFunction } from "../_shared/functions.ts";
import type { StoreLocation } from "../_shared/store_config.ts";
import type { StateStore } from "./adapters/store.ts";
import { readScope, readTarget, readValue } from "./input.ts";
import type { StateEvent } from "./triggers.ts";
import { parseOps } from "./update_ops.ts";
import { quoteName } from "./values.ts";

/** What the functions need: a store, where change events go, where failures are logged. */
export interface StateFunctionsOptions {
  store: StateStore;
  /**
   * Called after each successful change with the context of the call that
   * made it (its trace, so the triggers it fires continue that trace); must
   * return at once.
   */
  onChange(event: StateEvent, cause?: ChangeCause): void;
  log: Logger;
  /** Where the store keeps its data, named in its failures. */
  location?: StoreLocation;
}

/** The trace context of the call that made a change. */
export type ChangeCause = Pick<InvocationContext, "traceparent" | "baggage">;

/** The `state::*` functions by id. */
export function createStateFunctions(
  options: StateFunctionsOptions,
): Record<string, WorkerFunction> {
  const { store, onChange } = options;
  // Each function fails with its own code (GET_ERROR, SET_ERROR, …), as the reference does.
  const guard = storeGuard(options.log, options.location);

  return {
    "state::get": {
      description: "Returns the value stored under {scope, key}, or null when none is stored",
      handler: async (payload) => {
        const { scope, key } = readTarget("state::get", payload);
        const value = await guard(
          "GET_ERROR",
          `read scope ${quoteName(scope)} key ${quoteName(key)}`,
          () => store.get(scope, key),
        );
        return value ?? null;
      },
    },

    "state::set": {
      description: "Stores {value} under {scope, key}; returns {old_value, new_value}",
      handler: async (payload, ctx) => {
        const { scope, key, input } = readTarget("state::set", payload);
        const value = readValue("state::set", input);
        const { created, oldValue } = await guard(
          "SET_ERROR",
          `write scope ${quoteName(scope)} key ${quoteName(key)}`,
          () => store.set(scope, key, value),
        );
        onChange({
          type: "state",
          event_type: created ? "state:created" : "state:updated",
          scope,
          key,
          old_value: oldValue,
          new_value: value,
        }, ctx);
        return { old_value: oldValue, new_value: value };
      },
    },

    "state::delete": {
      description: "Deletes the value under {scope, key}; returns it, or null when none was stored",
      handler: async (payload, ctx) => {
        const { scope, key } = readTarget("state::delete", payload);
        const { existed, oldValue } = await guard(
          "DELETE_ERROR",
          `delete scope ${quoteName(scope)} key ${quoteName(key)}`,
          () => store.delete(scope, key),
        );
        if (existed) {
          onChange({
            type: "state",
            event_type: "state:deleted",
            scope,
            key,
            old_value: oldValue,
            new_value: null,
          }, ctx);
        }
        return oldValue;
      },
    },

    "state::update": {
      description:
        "Applies {ops} to the value under {scope, key} atomically; returns {old_value, new_value, errors?}",
      handler: async (payload, ctx) => {
        const { scope, key, input } = readTarget("state::update", payload);
        const parsed = parseOps(input.ops);
        if (!parsed.ok) throw invalidInput("state::update", parsed.problem, parsed.code);
        const outcome = await guard(
          "UPDATE_ERROR",
          `update scope ${quoteName(scope)} key ${quoteName(key)}`,
          () => store.update(scope, key, parsed.ops),
        );
        if (outcome.written) {
          onChange({
            type: "state",
            event_type: outcome.created ? "state:created" : "state:updated",
            scope,
            key,
            old_value: outcome.oldValue,
            new_value: outcome.newValue,
          }, ctx);
        }
        const result: Record<string, unknown> = {
          old_value: outcome.oldValue,
          new_value: outcome.newValue,
        };
        if (outcome.errors.length > 0) result.errors = outcome.errors;
        return result;
      },
    },

    "state::list": {
      description: "Returns the values stored in {scope}, ordered by key",
      handler: async (payload) => {
        const scope = readScope("state::list", payload);
        const entries = await guard(
          "LIST_ERROR",
          `list scope ${quoteName(scope)}`,
          () => store.list(scope),
        );
        return entries.map((entry) => entry.value);
      },
    },

    "state::list_keys": {
      description: "Returns the entries of {scope} as [{key, value}], ordered by key",
      handler: async (payload) => {
        const scope = readScope("state::list_keys", payload);
        return await guard("LIST_ERROR", `list scope ${quoteName(scope)}`, () => store.list(scope));
      },
    },

    "state::list_groups": {
      description: "Returns {groups}: the scopes that hold at least one value, sorted",
      handler: async () => {
        const groups = await guard(
          "LIST_GROUPS_ERROR",
          "list the scopes",
          () => store.listGroups(),
        );
        return { groups };
      },
    },
  };
}

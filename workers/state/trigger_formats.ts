/**
 * The `state` trigger type's JSON Schemas, listed by `engine::triggers::info`
 * (`{id: "state"}`): a trigger's config and the event its function is called
 * with (`triggers.ts`: `StateTriggerConfig`, `StateEvent`).
 *
 * @module
 */
import type { TriggerTypeFormats } from "../../engine/api.ts";

const NAME = { type: "string", minLength: 1 };

/** The config of a `state` trigger; an omitted filter matches everything. */
export const STATE_TRIGGER_CONFIG = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "StateTriggerConfig",
  type: "object",
  properties: {
    scope: { ...NAME, description: "Only changes in this scope" },
    key: { ...NAME, description: "Only changes of this key" },
    condition_function_id: {
      ...NAME,
      description: "Called first with the event; a result of exactly false skips the handler",
    },
  },
};

/** The event a `state` trigger's function (and its condition) is called with. */
export const STATE_CALL_REQUEST = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "StateCallRequest",
  type: "object",
  properties: {
    type: { const: "state" },
    event_type: { type: "string", enum: ["state:created", "state:updated", "state:deleted"] },
    scope: { type: "string" },
    key: { type: "string" },
    old_value: { description: "The value before; null when created" },
    new_value: { description: "The value after; null when deleted" },
  },
  required: ["type", "event_type", "scope", "key", "old_value", "new_value"],
};

/** What engine-state declares for the `state` type. */
export const STATE_TRIGGER_FORMATS: TriggerTypeFormats = {
  trigger_request_format: STATE_TRIGGER_CONFIG,
  call_request_format: STATE_CALL_REQUEST,
};

/**
 * What a trigger's provider is told of a stored trigger. Pure.
 *
 * @module
 */
import type { TriggerBinding } from "./api.ts";
import type { TriggerRecord } from "./registry/triggers.ts";

/** The binding of trigger `t`, registered by worker id `t.owner`. */
export function binding(t: TriggerRecord<string>): TriggerBinding {
  return {
    id: t.id,
    type: t.type,
    functionId: t.functionId,
    config: t.config,
    workerId: t.owner,
    ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
  };
}

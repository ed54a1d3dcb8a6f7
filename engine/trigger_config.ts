/**
 * Reading the config of a trigger of one of the engine's own trigger types.
 *
 * @module
 */
import { z } from "zod";
import type { TriggerTypeFormats } from "./api.ts";

/**
 * The JSON Schemas an engine trigger type declares (`engine::triggers::info`),
 * derived from the zod schemas that read a trigger's config (as its input:
 * optional fields not required) and describe the payload its function gets.
 */
export function formatsOf(config: z.ZodType, call: z.ZodType): TriggerTypeFormats {
  return {
    trigger_request_format: z.toJSONSchema(config, { io: "input" }),
    call_request_format: z.toJSONSchema(call),
  };
}

/**
 * `config` (absent: `{}`) read by `schema`; otherwise an error naming the
 * type and the field (`Invalid log trigger config: field "level": …`), which
 * the registering worker receives as the trigger's refusal.
 */
export function configOf<S extends z.ZodType>(
  type: string,
  schema: S,
  config: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(config ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length ? `field "${issue.path.join(".")}"` : "config";
  throw new Error(`Invalid ${type} trigger config: ${field}: ${issue.message}`);
}

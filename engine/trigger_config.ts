/**
 * Reading the config of a trigger of one of the engine's own trigger types.
 *
 * @module
 */
import type { z } from "zod";

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

/**
 * Reading the payloads of `engine::queue::*` calls: every problem becomes a
 * `CallError` `INVALID_ARGUMENT` that names the function and the field,
 * thrown before anything is stored.
 *
 * @module
 */

import { z } from "zod";
import { checkFunctionId } from "../../engine/protocol/ids.ts";
import { invalidInput } from "../_shared/call_errors.ts";
import { checkQueueName } from "./config.ts";

const queueName = z.string().superRefine((name, ctx) => {
  const problem = checkQueueName(name);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

const messageId = z.string().min(1).max(128);

/** What the engine sends for `TriggerAction.Enqueue` (extra fields are ignored). */
export const EnqueueInput = z.object({
  queue: queueName,
  function_id: z.string().superRefine((id, ctx) => {
    const problem = checkFunctionId(id);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  }),
  /** The payload; a missing one is delivered as `null` (zod would refuse it as "nonoptional"). */
  data: z.unknown().optional(),
  /** The receipt the engine promised the caller; generated when missing. */
  messageReceiptId: messageId.optional(),
  traceparent: z.string().max(512).optional(),
  baggage: z.string().max(8192).optional(),
});

export const QueueInput = z.object({ queue: queueName });

export const DeadLettersInput = z.object({
  queue: queueName,
  /** At most this many, oldest failure first. */
  limit: z.number().int().min(1).max(1000).default(100),
});

export const RedriveInput = z.object({ queue: queueName, id: messageId.optional() });

export const DiscardInput = z.object({ queue: queueName, id: messageId });

/** `payload` parsed by `schema`, or a `CallError` naming `fn` and the field. */
export function readInput<S extends z.ZodType>(
  fn: string,
  schema: S,
  payload: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(payload ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the payload";
  if (issue.code === "invalid_type" && issue.input === undefined && issue.path.length > 0) {
    throw invalidInput(fn, `${field} is missing: expected a ${issue.expected}`);
  }
  throw invalidInput(fn, `${field}: ${issue.message}`);
}

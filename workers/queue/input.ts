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
import type { DeadLetterCursor } from "./adapters/store.ts";
import { checkQueueName } from "./config.ts";

const queueName = z.string().superRefine((name, ctx) => {
  const problem = checkQueueName(name);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * A receipt id. SQLite stores one holding a NUL character but hands it back
 * cut at the NUL: the delivery's ack would name another id and never match,
 * so the message would be delivered again each time its lease ends.
 */
const messageId = z.string().min(1).max(128).superRefine((id, ctx) => {
  const at = id.indexOf("\u0000");
  if (at === -1) return;
  ctx.addIssue({
    code: "custom",
    message: `Must not contain the NUL character: it holds one at index ${at}`,
  });
});

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

/**
 * A place in the failure order of a queue's dead letters, as `dead_letters`
 * hands it out in `next_cursor`: `<failed_at_ms>:<id>` of the last letter of a page.
 */
export function cursorText(letter: DeadLetterCursor): string {
  return `${letter.failedAt}:${letter.id}`;
}

const cursor = z.string().transform((text, ctx): DeadLetterCursor => {
  const match = /^(\d{1,16}):(.{1,128})$/su.exec(text);
  if (match === null || !Number.isSafeInteger(Number(match[1]))) {
    ctx.addIssue({
      code: "custom",
      message: `Invalid cursor ${JSON.stringify(text.slice(0, 200))}: ` +
        'pass the "next_cursor" of the page before',
    });
    return z.NEVER;
  }
  return { failedAt: Number(match[1]), id: match[2]! };
});

/** A time in ms since the epoch: dead letters that failed before it. */
const failedBefore = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const DeadLettersInput = z.object({
  queue: queueName,
  /** At most this many. */
  limit: z.number().int().min(1).max(1000).default(100),
  order: z.enum(["oldest_first", "newest_first"]).default("oldest_first"),
  /** The letters after this place (in `order`): the `next_cursor` of the page before. */
  cursor: cursor.optional(),
});

/**
 * `{queue, id}`: one dead letter; `{queue, all: true, failed_before_ms?}`: every one of the
 * queue (that failed before the cut-off). With `allByName` (discard: deleting is for good) every
 * letter goes only when asked for with `all: true`, and a call that lost its `id` is refused;
 * without it (redrive), leaving out `id` means all.
 */
function oneOrAll(allByName: boolean) {
  return z.object({
    queue: queueName,
    id: messageId.optional(),
    all: z.literal(true).optional(),
    failed_before_ms: failedBefore.optional(),
  }).superRefine((input, ctx) => {
    if (input.id === undefined) {
      if (allByName && input.all !== true) {
        ctx.addIssue({
          code: "custom",
          path: ["id"],
          message: 'Missing: give the "id" of one dead letter, or "all": true to delete every one',
        });
      }
      return;
    }
    for (const field of ["all", "failed_before_ms"] as const) {
      if (input[field] === undefined) continue;
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: field === "all"
          ? 'Cannot be given with "id": "all" means every dead letter of the queue'
          : 'Cannot be given with "id": the cut-off picks among all of the queue\'s dead letters',
      });
      return;
    }
  });
}

export const RedriveInput = oneOrAll(false);

export const DiscardInput = oneOrAll(true);

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

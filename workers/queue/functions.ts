/**
 * The `engine::queue::*` functions: `enqueue` (what `TriggerAction.Enqueue`
 * reaches through the engine) and the functions that inspect and manage
 * queues and their dead letters. Shapes are in README.md.
 *
 * @module
 */

import { CallError, type InvocationContext, type Logger } from "../../engine/api.ts";
import { parseTraceparent } from "../../engine/observability/traceparent.ts";
import { invalidInput, storeGuard } from "../_shared/call_errors.ts";
import type { WorkerFunction } from "../_shared/functions.ts";
import type { StoreLocation } from "../_shared/store_config.ts";
import { overBytes } from "../_shared/utf8.ts";
import type { DeadLetter, DeadLetterCut, QueueStore } from "./adapters/store.ts";
import type { Clock } from "./clock.ts";
import { isConfigured, type QueueConfig, settingsOf } from "./config.ts";
import type { Counters } from "./counters.ts";
import type { Dispatcher } from "./dispatcher.ts";
import {
  cursorText,
  DeadLettersInput,
  DiscardInput,
  EnqueueInput,
  QueueInput,
  readInput,
  RedriveInput,
} from "./input.ts";

export const QUEUE_FUNCTIONS = {
  enqueue: "engine::queue::enqueue",
  list: "engine::queue::list",
  deadLetters: "engine::queue::dead_letters",
  redrive: "engine::queue::redrive",
  discard: "engine::queue::discard",
  stats: "engine::queue::stats",
} as const;

/** What the functions work with. */
export interface QueueFunctionsOptions {
  config: QueueConfig;
  store: QueueStore;
  dispatcher: Dispatcher;
  counters: Counters;
  clock: Clock;
  log: Logger;
  /** Where the store keeps its data, named in its failures. */
  location?: StoreLocation;
}

/** The `engine::queue::*` functions by id. */
export function createQueueFunctions(o: QueueFunctionsOptions): Record<string, WorkerFunction> {
  const { config, store, dispatcher, counters, clock } = o;
  // Every store failure answers with the one code QUEUE_STORE_ERROR.
  const storeCall = storeGuard(o.log, o.location);
  const guard = <T>(action: string, call: () => T | Promise<T>) =>
    storeCall("QUEUE_STORE_ERROR", action, call);
  const F = QUEUE_FUNCTIONS;

  /** Every queue the worker knows: configured, stored or being delivered. */
  const knownQueues = async () =>
    new Set([
      ...Object.keys(config.queues),
      ...await guard("list the queues", () => store.queues()),
      ...dispatcher.queues,
    ]);
  const requireQueue = async (queue: string) => {
    if (isConfigured(config, queue) || (await knownQueues()).has(queue)) return;
    throw new CallError({ code: "QUEUE_NOT_FOUND", message: `Queue "${queue}" not found` });
  };

  return {
    [F.enqueue]: {
      description:
        "Stores {queue, function_id, data} durably for delivery; returns {messageReceiptId}",
      handler: async (payload, ctx) => {
        const input = readInput(F.enqueue, EnqueueInput, payload);
        const traceparent = deliveryParent(input.traceparent, ctx);
        const { queue } = input;
        if (!config.auto_create_queues && !isConfigured(config, queue)) {
          throw new CallError({
            code: "QUEUE_NOT_FOUND",
            message:
              `Queue "${queue}" is not configured: add it under "queues" in the engine-queue config, or set "auto_create_queues: true"`,
          });
        }
        const dataText = jsonOf(input.data);
        const size = overBytes(dataText, config.max_payload_bytes);
        if (size !== undefined) {
          throw new CallError({
            code: "PAYLOAD_TOO_LARGE",
            message:
              `Cannot enqueue to queue "${queue}": the payload is ${size} bytes, over the limit of ${config.max_payload_bytes} (max_payload_bytes)`,
          });
        }
        const id = input.messageReceiptId ?? crypto.randomUUID();
        await guard(`store a message in queue "${queue}"`, () =>
          store.enqueue({
            id,
            queue,
            functionId: input.function_id,
            dataText,
            enqueuedAt: clock.now(),
            ...(traceparent === undefined ? {} : { traceparent }),
            ...(input.baggage === undefined ? {} : { baggage: input.baggage }),
          }));
        counters.add(queue, "enqueued");
        dispatcher.notify(queue);
        return { messageReceiptId: id };
      },
    },

    [F.list]: {
      description:
        "Lists the queues: [{name, depth, in_flight, dead_letters, configured, settings}]",
      handler: async () => {
        const now = clock.now();
        const names = [...await knownQueues()].sort();
        const queues = await Promise.all(names.map(async (name) => {
          const counts = await guard(`count queue "${name}"`, () => store.counts(name, now));
          return {
            name,
            depth: counts.depth,
            in_flight: counts.inFlight,
            dead_letters: counts.deadLetters,
            configured: isConfigured(config, name),
            settings: settingsOf(config, name),
          };
        }));
        return { adapter: store.adapter, queues };
      },
    },

    [F.deadLetters]: {
      description:
        "Lists the dead letters of {queue, limit?, order?, cursor?}: oldest failure first, or newest_first; next_cursor pages on",
      handler: async (payload) => {
        const { queue, limit, order, cursor } = readInput(F.deadLetters, DeadLettersInput, payload);
        await requireQueue(queue);
        const page = {
          newestFirst: order === "newest_first",
          ...(cursor ? { after: cursor } : {}),
        };
        // One more than asked tells whether a next page has anything; the count comes with the
        // page, read at the same moment (side by side, another engine could change one between).
        const { letters, total } = await guard(
          `list the dead letters of queue "${queue}"`,
          () => store.deadLetters(queue, limit + 1, page),
        );
        const shown = letters.slice(0, limit);
        const last = shown.at(-1);
        return {
          queue,
          total,
          dead_letters: shown.map(deadLetterView),
          ...(letters.length > limit && last ? { next_cursor: cursorText(last) } : {}),
        };
      },
    },

    [F.redrive]: {
      description:
        "Puts the dead letter {queue, id} (or every one of {queue}, failed before failed_before_ms if given) back for delivery; returns {redriven}",
      handler: async (payload) => {
        const { queue, id, failed_before_ms } = readInput(F.redrive, RedriveInput, payload);
        await requireQueue(queue);
        const redriven = await guard(
          `redrive queue "${queue}"`,
          () => store.redrive(queue, id, clock.now(), cutOf(failed_before_ms)),
        );
        if (id !== undefined && redriven === 0) throw deadLetterNotFound(queue, id);
        counters.add(queue, "redriven", redriven);
        if (redriven > 0) dispatcher.notify(queue);
        return { queue, redriven };
      },
    },

    [F.discard]: {
      description:
        "Deletes the dead letter {queue, id}, or with {queue, all: true} every one (failed before failed_before_ms if given): returns {discarded}",
      handler: async (payload) => {
        const { queue, id, failed_before_ms } = readInput(F.discard, DiscardInput, payload);
        await requireQueue(queue);
        if (id === undefined) {
          const discarded = await guard(
            `discard the dead letters of queue "${queue}"`,
            () => store.discardAll(queue, cutOf(failed_before_ms)),
          );
          counters.add(queue, "discarded", discarded);
          dispatcher.touch(queue);
          return { queue, discarded };
        }
        const discarded = await guard(
          `discard a dead letter of queue "${queue}"`,
          () => store.discard(queue, id),
        );
        if (!discarded) throw deadLetterNotFound(queue, id);
        counters.add(queue, "discarded");
        dispatcher.touch(queue);
        return { queue, id, discarded: true };
      },
    },

    [F.stats]: {
      description: "Counts what each queue did since the engine started, and what is in flight",
      handler: async (payload) => {
        const only = payload === undefined || payload === null ||
            (typeof payload === "object" && !("queue" in payload))
          ? undefined
          : readInput(F.stats, QueueInput, payload).queue;
        if (only !== undefined) await requireQueue(only);
        const names = only === undefined
          ? [...new Set([...await knownQueues(), ...counters.queues()])].sort()
          : [only];
        return {
          adapter: store.adapter,
          since_ms: counters.since,
          totals: counters.totals(),
          queues: Object.fromEntries(
            names.map((
              name,
            ) => [name, { ...counters.of(name), in_flight: dispatcher.inFlight(name) }]),
          ),
        };
      },
    },
  };
}

/** A dead letter as the functions return it. */
export function deadLetterView(letter: DeadLetter): Record<string, unknown> {
  return {
    id: letter.id,
    function_id: letter.functionId,
    data: letter.data,
    attempts: letter.attempts,
    last_error: letter.lastError,
    enqueued_at_ms: letter.enqueuedAt,
    failed_at_ms: letter.failedAt,
    ...(letter.traceparent === undefined ? {} : { traceparent: letter.traceparent }),
  };
}

/**
 * The compact JSON text a message is stored as. An in-process caller can pass
 * what JSON cannot hold (a BigInt, a cycle, a function): refused, naming the field.
 */
function jsonOf(data: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(data ?? null);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw invalidInput(QUEUE_FUNCTIONS.enqueue, `"data" cannot be stored as JSON: ${detail}`);
  }
  if (text === undefined) {
    throw invalidInput(
      QUEUE_FUNCTIONS.enqueue,
      `"data" cannot be stored as JSON: it is a ${typeof data}`,
    );
  }
  return text;
}

function cutOf(failedBefore: number | undefined): DeadLetterCut {
  return failedBefore === undefined ? {} : { failedBefore };
}

function deadLetterNotFound(queue: string, id: string): CallError {
  return new CallError({
    code: "NOT_FOUND",
    message: `Dead letter "${id}" not found in queue "${queue}"`,
  });
}

/**
 * The trace context stored with a message: the enqueue call's own span when it
 * continues the trace `sent` names (a delivery is a child of the enqueue that
 * stored it, not a sibling of it under the handler that enqueued), else `sent`
 * as given (a direct caller naming another trace, or none).
 */
function deliveryParent(
  sent: string | undefined,
  ctx: Pick<InvocationContext, "traceparent"> | undefined,
): string | undefined {
  const caller = parseTraceparent(sent);
  const call = parseTraceparent(ctx?.traceparent);
  if (caller === undefined || call === undefined || call.traceId !== caller.traceId) return sent;
  return ctx?.traceparent;
}

/**
 * `invokefunction` with `action: {type: "enqueue", queue}`: the engine hands
 * the message to whichever worker provides `engine::queue::enqueue` (the
 * queue worker) and answers the caller with its receipt.
 *
 * @module
 */
import type { CallRequest, Engine, Outcome } from "./core.ts";
import { ErrorCode } from "./protocol/errors.ts";

export const ENQUEUE_FUNCTION = "engine::queue::enqueue";

export function enqueue(
  engine: Engine,
  req: CallRequest,
  queue: string,
  settle: (outcome: Outcome) => void,
): void {
  const messageReceiptId = crypto.randomUUID();
  engine.invoke({
    ...req,
    functionId: ENQUEUE_FUNCTION,
    data: {
      queue,
      function_id: req.functionId,
      data: req.data,
      messageReceiptId,
      ...(req.traceparent ? { traceparent: req.traceparent } : {}),
      ...(req.baggage ? { baggage: req.baggage } : {}),
    },
  }, (o) => {
    if (o.ok) {
      settle({ ok: true, result: o.result ?? { messageReceiptId } });
    } else if (
      o.error.code === ErrorCode.FunctionNotFound && !engine.functions.has(ENQUEUE_FUNCTION)
    ) {
      settle({
        ok: false,
        error: {
          code: ErrorCode.EnqueueError,
          message:
            `No queue provider is installed: add it with "engine worker add engine-queue" (underlying: Function ${ENQUEUE_FUNCTION} not found)`,
        },
      });
    } else {
      settle({ ok: false, error: { code: ErrorCode.EnqueueError, message: o.error.message } });
    }
  });
}

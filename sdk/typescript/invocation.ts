/**
 * Running a handler for an inbound `invokefunction` and building its
 * `invocationresult`.
 *
 * @module
 */

import { channelEndpoint, openEnd } from "./channels/endpoint.ts";
import { replaceChannelRefs } from "./channels/ref.ts";
import { toErrorBody } from "./errors.ts";
import { oversize, oversizeMessage } from "./frame_size.ts";
import { runInScope } from "./trace.ts";
import type { FunctionHandler, InvocationContext } from "./types.ts";

/** A JSON frame of the protocol. */
export type Frame = Record<string, unknown> & { type: string };

/**
 * Runs `handler` for the inbound call `msg` inside an invocation scope (so
 * `Logger` and `trigger()` see its function and trace) and resolves with the
 * `invocationresult` text to send, or `undefined` when the call has no
 * `invocation_id`. A missing handler gives `function_not_found`. Never rejects.
 *
 * @example
 * ```ts
 * const text = await runInvocation(
 *   { type: "invokefunction", invocation_id: "i-1", function_id: "math::double", data: 21 },
 *   (n) => (n as number) * 2,
 *   undefined,
 * );
 * console.log(text); // {"type":"invocationresult","invocation_id":"i-1","function_id":"math::double","result":42}
 * ```
 */
export async function runInvocation(
  msg: Record<string, unknown>,
  handler: FunctionHandler | undefined,
  worker: unknown,
): Promise<string | undefined> {
  const function_id = String(msg.function_id);
  const invocationId = typeof msg.invocation_id === "string" ? msg.invocation_id : undefined;
  const traceparent = typeof msg.traceparent === "string" ? msg.traceparent : undefined;
  const baggage = typeof msg.baggage === "string" ? msg.baggage : undefined;
  const reply = (outcome: { result?: unknown; error?: unknown }): string | undefined => {
    if (!invocationId) return undefined;
    // Field by field, in this order (no spreads: this runs once per call).
    const frame: Record<string, unknown> = {
      type: "invocationresult",
      invocation_id: invocationId,
      function_id,
    };
    if ("result" in outcome) frame.result = outcome.result;
    if ("error" in outcome) frame.error = outcome.error;
    if (traceparent) frame.traceparent = traceparent;
    if (baggage) frame.baggage = baggage;
    try {
      const text = JSON.stringify(frame);
      const bytes = oversize(text);
      if (bytes === undefined) return text;
      // Sent, it would end the connection and fail every call in flight on it.
      const message = oversizeMessage(`Result of "${function_id}"`, bytes);
      return JSON.stringify({
        ...frame,
        result: undefined,
        error: { code: "frame_too_large", message },
      });
    } catch (err) {
      const message = `Result of "${function_id}" is not JSON-serializable: ${
        (err as Error).message
      }`;
      return JSON.stringify({
        ...frame,
        result: undefined,
        error: { code: "invocation_failed", message },
      });
    }
  };
  if (!handler) {
    return reply({ error: { code: "function_not_found", message: "Function not found" } });
  }

  const data = msg.data as Record<string, unknown> | null | undefined;
  const callerWorkerId = typeof data?._caller_worker_id === "string"
    ? data._caller_worker_id
    : undefined;
  // Field by field, in this order, as the frames are (no temporary object per optional field).
  const ctx: InvocationContext = { functionId: function_id };
  if (invocationId) ctx.invocationId = invocationId;
  if (msg.metadata !== undefined) ctx.metadata = msg.metadata;
  if (traceparent) ctx.traceparent = traceparent;
  if (baggage) ctx.baggage = baggage;
  if (callerWorkerId) ctx.callerWorkerId = callerWorkerId;
  const scope = { worker, functionId: function_id, invocationId, traceparent, baggage };
  return await runInScope(scope, async () => {
    try {
      const result = await handler(withChannelEnds(msg.data, worker), ctx);
      return reply(result === undefined ? {} : { result });
    } catch (err) {
      if (!invocationId) console.error(`[engine-sdk] Error invoking function ${function_id}`, err);
      return reply({ error: toErrorBody(err) });
    }
  });
}

/**
 * `data` with its channel refs replaced by live ends of `worker`'s engine
 * (protocol.md §9.5): an HTTP handler's `request_body` becomes a
 * `ChannelReader`, its `response` a `ChannelWriter`.
 */
function withChannelEnds(data: unknown, worker: unknown): unknown {
  const endpoint = channelEndpoint(worker);
  if (!endpoint || typeof data !== "object" || data === null) return data;
  return replaceChannelRefs(data, (ref) => openEnd(endpoint, ref));
}

/**
 * The worker ⇄ engine wire protocol: one JSON message per WebSocket text
 * frame, discriminated by `type` (see `shared/reference/protocol.md`).
 * Inbound frames are parsed here with zod, at the socket edge; unknown extra
 * fields are ignored (the npm SDK sends a stray `message_type`).
 *
 * @module
 */
import { z } from "zod";

const errorBody = z.object({
  code: z.string(),
  message: z.string(),
  stacktrace: z.string().nullish(),
});

const traceFields = {
  traceparent: z.string().max(256).optional(),
  baggage: z.string().max(8192).optional(),
};

/** Ids are bounded so a hostile peer cannot make the engine index megabytes. */
const id = z.string().min(1).max(512);

const triggerAction = z.discriminatedUnion("type", [
  z.object({ type: z.literal("void") }),
  z.object({ type: z.literal("enqueue"), queue: z.string().min(1).max(512) }),
]);

export const registerFunctionFrame = z.object({
  type: z.literal("registerfunction"),
  id,
  description: z.string().optional(),
  request_format: z.unknown().optional(),
  response_format: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  invocation: z.unknown().optional(),
});

export const unregisterFunctionFrame = z.object({ type: z.literal("unregisterfunction"), id });

export const registerTriggerFrame = z.object({
  type: z.literal("registertrigger"),
  id,
  trigger_type: id,
  function_id: id,
  config: z.unknown(),
  metadata: z.unknown().optional(),
});

export const unregisterTriggerFrame = z.object({
  type: z.literal("unregistertrigger"),
  id,
  trigger_type: z.string().optional(),
});

export const registerTriggerTypeFrame = z.object({
  type: z.literal("registertriggertype"),
  id,
  description: z.string().default(""),
  trigger_request_format: z.unknown().optional(),
  call_request_format: z.unknown().optional(),
  call_response_format: z.unknown().optional(), // ours: what the provider reads of the answer
});

export const unregisterTriggerTypeFrame = z.object({
  type: z.literal("unregistertriggertype"),
  id,
});

export const triggerRegistrationResultFrame = z.object({
  type: z.literal("triggerregistrationresult"),
  id,
  trigger_type: z.string().optional(),
  function_id: z.string().optional(),
  error: errorBody.nullish(),
});

export const invokeFunctionFrame = z.object({
  type: z.literal("invokefunction"),
  invocation_id: id.optional(),
  function_id: id,
  data: z.unknown(),
  metadata: z.unknown().optional(),
  action: triggerAction.nullish(),
  ...traceFields,
});

export const invocationResultFrame = z.object({
  type: z.literal("invocationresult"),
  invocation_id: id,
  function_id: z.string().optional(),
  result: z.unknown().optional(),
  /** Any truthy value marks a failure; a non-ErrorBody is wrapped by the engine. */
  error: z.unknown().optional(),
  ...traceFields,
});

export const reattachFrame = z.object({
  type: z.literal("reattach"),
  previous_worker_id: z.string().max(512),
  reattach_token: z.string().max(512).optional(),
});

export const pingFrame = z.object({ type: z.literal("ping") });
export const registerServiceFrame = z.object({ type: z.literal("registerservice"), id });

/** Every frame a worker may send, by its `type`. */
export const inboundFrames = {
  registerfunction: registerFunctionFrame,
  unregisterfunction: unregisterFunctionFrame,
  registertrigger: registerTriggerFrame,
  unregistertrigger: unregisterTriggerFrame,
  registertriggertype: registerTriggerTypeFrame,
  unregistertriggertype: unregisterTriggerTypeFrame,
  triggerregistrationresult: triggerRegistrationResultFrame,
  invokefunction: invokeFunctionFrame,
  invocationresult: invocationResultFrame,
  reattach: reattachFrame,
  ping: pingFrame,
  registerservice: registerServiceFrame,
} as const;

export type InboundType = keyof typeof inboundFrames;
export type InboundFrame = { [K in InboundType]: z.infer<(typeof inboundFrames)[K]> }[InboundType];
export type InvokeFunctionFrame = z.infer<typeof invokeFunctionFrame>;
export type InvocationResultFrame = z.infer<typeof invocationResultFrame>;
export type RegisterTriggerFrame = z.infer<typeof registerTriggerFrame>;
export type TriggerAction = z.infer<typeof triggerAction>;

/** Frames the engine sends. */
export type OutboundFrame =
  | { type: "workerregistered"; worker_id: string; reattach_token: string }
  | {
    type: "invokefunction";
    invocation_id: string;
    function_id: string;
    data: unknown;
    metadata?: unknown;
    traceparent?: string;
    baggage?: string;
  }
  | {
    type: "invocationresult";
    invocation_id: string;
    function_id: string;
    result?: unknown;
    error?: { code: string; message: string; stacktrace?: string };
    traceparent?: string;
    baggage?: string;
  }
  | {
    type: "registertrigger";
    id: string;
    trigger_type: string;
    function_id: string;
    config: unknown;
    metadata?: unknown;
  }
  | { type: "unregistertrigger"; id: string; trigger_type: string }
  | {
    type: "triggerregistrationresult";
    id: string;
    trigger_type: string;
    function_id: string;
    error?: { code: string; message: string };
  }
  | { type: "error"; error: { code: string; message: string } }
  | { type: "pong" };

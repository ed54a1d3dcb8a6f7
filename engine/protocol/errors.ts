/**
 * Error codes the engine puts in `ErrorBody.code`, and the messages that go
 * with them. The reference's codes are kept where it has them. The bodies
 * made here for a call the engine itself ends are marked as its own failure
 * (`markEngineFailure`), which a worker's error never is.
 *
 * @module
 */
import { type ErrorBody, markEngineFailure } from "../api.ts";

export const ErrorCode = {
  FunctionNotFound: "function_not_found",
  InvocationStopped: "invocation_stopped",
  InvocationTimeout: "invocation_timeout",
  InvocationFailed: "invocation_failed",
  InvalidFunctionId: "invalid_function_id",
  InvalidJson: "invalid_json",
  InvalidFrame: "invalid_frame",
  FrameTooLarge: "frame_too_large",
  UnknownFrameType: "unknown_frame_type",
  TriggerRegistrationFailed: "trigger_registration_failed",
  /** A provider refused a trigger as taken (a route held by another): offered again later. */
  TriggerTaken: "trigger_taken",
  EnqueueError: "enqueue_error",
  Overloaded: "overloaded",
  InvalidArgument: "INVALID_ARGUMENT",
  Unknown: "UNKNOWN",
} as const;

/**
 * `Function <id> not found`, as the reference words it, then `: <detail>`
 * when there is more to say (a worker was refused that id).
 */
export function functionNotFound(functionId: string, detail?: string): ErrorBody {
  return markEngineFailure({
    code: ErrorCode.FunctionNotFound,
    message: `Function ${functionId} not found${detail === undefined ? "" : `: ${detail}`}`,
  });
}

/** `Invocation of <id> stopped: <reason>`: a call ended before its worker answered. */
export function invocationStopped(functionId: string, reason: string): ErrorBody {
  return markEngineFailure({
    code: ErrorCode.InvocationStopped,
    message: `Invocation of ${functionId} stopped: ${reason}`,
  });
}

/**
 * `Invocation of <id> timed out after <ms>ms`; `engineDeadline`: the time-out
 * was the engine's own setting, not one its caller chose, and the message
 * names it (an npm iii-sdk caller's `timeoutMs` never reaches the engine, so
 * a longer one still ends here: the setting is what to raise).
 */
export function invocationTimeout(
  functionId: string,
  ms: number,
  engineDeadline = false,
): ErrorBody {
  const setting = engineDeadline ? " (the engine's invocation_timeout_ms)" : "";
  return markEngineFailure({
    code: ErrorCode.InvocationTimeout,
    message: `Invocation of ${functionId} timed out after ${ms}ms${setting}`,
  });
}

/** Normalises whatever a worker put in `error` into an ErrorBody (as the npm SDK does). */
export function toErrorBody(error: unknown): ErrorBody {
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    if (typeof e.code === "string" && typeof e.message === "string") {
      return typeof e.stacktrace === "string"
        ? { code: e.code, message: e.message, stacktrace: e.stacktrace }
        : { code: e.code, message: e.message };
    }
    return { code: ErrorCode.Unknown, message: JSON.stringify(error) };
  }
  return { code: ErrorCode.Unknown, message: String(error) };
}

/**
 * `Invocation of <id> refused: worker "<name>" is shutting down …`: the call
 * never ran (its worker refused it while draining) and no other live replica
 * could take it. The worker's own words follow in brackets.
 */
export function refusedAtShutdown(functionId: string, worker: string, said: string): ErrorBody {
  return markEngineFailure({
    code: "shutdown",
    message:
      `Invocation of ${functionId} refused: worker "${worker}" is shutting down and no other live replica could take the call (${said})`,
  });
}

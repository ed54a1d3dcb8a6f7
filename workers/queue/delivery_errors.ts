/**
 * The error bodies the delivery loop records for a message, and the text of
 * a thrown value.
 *
 * @module
 */

import { CallError, type ErrorBody } from "../../engine/api.ts";

/** A delivery put off: its function is not registered (yet). */
export function notRegistered(functionId: string): ErrorBody {
  return {
    code: "function_not_found",
    message: `Function ${functionId} is not registered: the message waits for it`,
  };
}

/** A delivery stopped by the worker stopping: released, not failed. */
export function stopped(): ErrorBody {
  return {
    code: "invocation_stopped",
    message: "Invocation stopped: the queue worker is stopping",
  };
}

/** The error body a failed call records. */
export function bodyOf(error: unknown): ErrorBody {
  if (error instanceof CallError) return error.toBody();
  return { code: "invocation_failed", message: messageOf(error) };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Middleware: what it is given and what its result means.
 *
 * | Result | Effect |
 * |---|---|
 * | `{action: "continue", context?}` | go on; a `context` map is merged into the request's context |
 * | `{action: "respond", response: {status_code, body, headers?}}` | reply with it; skip the rest |
 * | no result, or any other action | a warning naming the middleware; go on |
 * | a throw | 500 with an `error_id` (see `calls.ts`) |
 * | no answer within `middleware_timeout` | 504 |
 *
 * @module
 */
import type { Logger } from "../../engine/api.ts";
import { Code, HttpError } from "./errors.ts";
import { toHttpResponse } from "./response.ts";

export type Context = Record<string, unknown>;

/** The request as middleware sees it: no body, by design (rejected requests skip parsing). */
export interface MiddlewareRequest {
  path_params: Record<string, string>;
  query_params: Record<string, string>;
  headers: Record<string, string>;
  method: string;
}

export interface MiddlewareInput {
  phase: "preHandler";
  request: MiddlewareRequest;
  context: Context;
}

export type MiddlewareOutcome =
  | { kind: "continue"; context: Context }
  | { kind: "respond"; response: Response };

/** What middleware `functionId`'s `result` means, given the request's `context` so far. */
export function interpretMiddlewareResult(
  functionId: string,
  result: unknown,
  context: Context,
  log: Logger,
): MiddlewareOutcome {
  const name = JSON.stringify(functionId);
  if (result === undefined || result === null) {
    log.warn(`Middleware ${name} returned no result: treated as continue`, {
      function_id: functionId,
    });
    return { kind: "continue", context };
  }
  const action = isMap(result) ? result.action : undefined;
  if (action === "respond") {
    const mapped = toHttpResponse((result as Record<string, unknown>).response);
    if (mapped.kind === "invalid") {
      throw new HttpError(
        500,
        Code.InvalidResponse,
        `Middleware ${name} responded but ${mapped.reason}`,
        {
          detail: { role: "middleware", function_id: functionId },
        },
      );
    }
    return { kind: "respond", response: mapped.response };
  }
  if (action === "continue") {
    const added = (result as Record<string, unknown>).context;
    if (added === undefined || added === null) return { kind: "continue", context };
    if (isMap(added)) return { kind: "continue", context: { ...context, ...added } };
    log.warn(`Middleware ${name} returned a context that is not a map: ignored`, {
      function_id: functionId,
    });
    return { kind: "continue", context };
  }
  const what = isMap(result)
    ? `an unknown action ${JSON.stringify(action) ?? "(none)"}`
    : "a result that is not a map";
  log.warn(`Middleware ${name} returned ${what}: treated as continue`, { function_id: functionId });
  return { kind: "continue", context };
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

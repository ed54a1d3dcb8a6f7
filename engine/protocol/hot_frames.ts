/**
 * Plain checks for the two frames of every routed call, `invokefunction`
 * and `invocationresult`, so the hot path skips zod. Each check accepts only
 * what the frame's zod schema in `frames.ts` accepts (`hot_frames_test.ts`
 * holds them to that); anything it does not accept goes through zod, which
 * decides and words the error.
 *
 * @module
 */

type Raw = Record<string, unknown>;

const isId = (v: unknown): v is string => typeof v === "string" && v.length >= 1 && v.length <= 512;
const optionalString = (v: unknown, max: number): boolean =>
  v === undefined || (typeof v === "string" && v.length <= max);
const traceFieldsOk = (f: Raw): boolean =>
  optionalString(f.traceparent, 256) && optionalString(f.baggage, 8192);

function actionOk(action: unknown): boolean {
  if (action === undefined || action === null) return true;
  if (typeof action !== "object" || Array.isArray(action)) return false;
  const a = action as Raw;
  return a.type === "void" || (a.type === "enqueue" && isId(a.queue));
}

/** Whether `f` (a parsed JSON object with this `type`) is a valid `invokefunction` frame. */
export function isInvokeFunction(f: Raw): boolean {
  // zod requires the `data` key (any value, null included).
  return "data" in f && (f.invocation_id === undefined || isId(f.invocation_id)) &&
    isId(f.function_id) && traceFieldsOk(f) && actionOk(f.action);
}

/** Whether `f` (a parsed JSON object with this `type`) is a valid `invocationresult` frame. */
export function isInvocationResult(f: Raw): boolean {
  return isId(f.invocation_id) && optionalString(f.function_id, Infinity) && traceFieldsOk(f);
}

/**
 * The text of the two frames that carry a payload, written around the
 * payload's own JSON text (see `member_text.ts`): `invokefunction` to the
 * worker that runs a call, `invocationresult` back to its caller. Written
 * as templates, not by `JSON.stringify` of an object and a splice: every
 * call passes here twice, and the template costs what serializing the
 * whole frame used to.
 *
 * @module
 */

/** An `invokefunction` frame whose `data` is the JSON text `dataText`. */
export interface InvokeText {
  invocationId: string;
  functionId: string;
  dataText: string;
  metadata?: unknown;
  traceparent?: string;
  baggage?: string;
}

/**
 * The `invokefunction` frame's text: members in the order the engine always
 * writes them, optional ones only when set.
 *
 * @example
 * ```ts
 * import { invokeFrameText } from "./frame_text.ts";
 * invokeFrameText({ invocationId: "i", functionId: "a::b", dataText: '{"x": 1}' });
 * // '{"type":"invokefunction","invocation_id":"i","function_id":"a::b","data":{"x": 1}}'
 * ```
 */
export function invokeFrameText(call: InvokeText): string {
  let text = `{"type":"invokefunction","invocation_id":${JSON.stringify(call.invocationId)},` +
    `"function_id":${JSON.stringify(call.functionId)},"data":${call.dataText}`;
  if (call.metadata !== undefined) text += `,"metadata":${JSON.stringify(call.metadata)}`;
  if (call.traceparent) text += `,"traceparent":${JSON.stringify(call.traceparent)}`;
  if (call.baggage) text += `,"baggage":${JSON.stringify(call.baggage)}`;
  return `${text}}`;
}

/** The `invocationresult` frame's text for a result given as the JSON text `resultText`. */
export function resultFrameText(
  invocationId: string,
  functionId: string,
  resultText: string,
  traceparent?: string,
): string {
  const trace = traceparent ? `,"traceparent":${JSON.stringify(traceparent)}` : "";
  return `{"type":"invocationresult","invocation_id":${JSON.stringify(invocationId)},` +
    `"function_id":${JSON.stringify(functionId)},"result":${resultText}${trace}}`;
}

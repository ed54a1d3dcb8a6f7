/**
 * Turns the text of one WebSocket frame into a validated inbound frame, or an
 * error that says what was wrong with it. Never throws.
 *
 * @module
 */
import { deeperThan } from "./depth.ts";
import type { z } from "zod";
import { type InboundFrame, inboundFrames, type InboundType } from "./frames.ts";
import { ErrorCode } from "./errors.ts";
import { isInvocationResult, isInvokeFunction } from "./hot_frames.ts";
import { firstMemberTexts } from "./member_text.ts";
import { describeIssue as describeConfigIssue } from "../config/issues.ts";
import { formatPath } from "../config/locate.ts";

export type ParseOutcome =
  | { ok: true; frame: InboundFrame }
  | { ok: false; code: string; message: string; skip?: boolean; call?: RefusedCall };

/**
 * The call a refused `invokefunction` or `invocationresult` frame belongs to,
 * when its ids can be read: the engine answers it with the error, so neither
 * the caller of a refused call nor the caller waiting on a refused result runs
 * into its time-out.
 */
export interface RefusedCall {
  type: "invokefunction" | "invocationresult";
  invocationId: string;
  functionId?: string;
}

/**
 * Nesting deeper than this is refused (what later walks the value, such as
 * JSON.stringify, would blow the stack). V8's JSON.parse itself is not
 * recursive, so the depth of a parsed frame is checked on the value: a walk
 * over its nodes, far cheaper than a scan of every character of its text.
 */
const MAX_DEPTH = 512;

const TOO_DEEP: ParseOutcome & { ok: false } = {
  ok: false,
  code: ErrorCode.InvalidFrame,
  message: `Frame is nested more than ${MAX_DEPTH} levels deep`,
};

export function parseFrame(text: string): ParseOutcome {
  if (text.trim() === "") {
    return { ok: false, code: ErrorCode.InvalidFrame, message: "", skip: true };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // A frame both too deep and malformed is reported as too deep.
    if (text.length > MAX_DEPTH && tooDeep(text)) return TOO_DEEP;
    return {
      ok: false,
      code: ErrorCode.InvalidJson,
      message: `Frame is not valid JSON: ${(e as Error).message}`,
    };
  }
  if (text.length > MAX_DEPTH && deeperThan(raw, MAX_DEPTH)) return withCall(TOO_DEEP, raw);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, code: ErrorCode.InvalidFrame, message: "Frame must be a JSON object" };
  }
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== "string") {
    return {
      ok: false,
      code: ErrorCode.InvalidFrame,
      message: 'Frame has no "type" field: expected a string such as "invokefunction"',
    };
  }
  const frame = raw as Record<string, unknown>;
  if (
    type === "invokefunction"
      ? isInvokeFunction(frame)
      : type === "invocationresult" && isInvocationResult(frame)
  ) {
    return { ok: true, frame: raw as InboundFrame };
  }
  // Own members only: "constructor" or "toString" would find Object.prototype's.
  const schema = Object.hasOwn(inboundFrames, type)
    ? (inboundFrames as Record<string, z.ZodType>)[type]
    : undefined;
  if (!schema) {
    return {
      ok: false,
      code: ErrorCode.UnknownFrameType,
      message: `Frame type "${type.slice(0, 64)}" is not part of the protocol`,
    };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return withCall({
      ok: false,
      code: ErrorCode.InvalidFrame,
      message: `Invalid "${type as InboundType}" frame: ${
        describeIssue(parsed.error.issues[0]!, raw)
      }`,
    }, raw);
  }
  return { ok: true, frame: parsed.data as InboundFrame };
}

/** `field "<path>": <problem>`, worded as config errors are (`Missing required field`, …). */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const { path, problem } = describeConfigIssue(issue, raw, { yaml: false });
  return `field "${path.length > 0 ? formatPath(path) : "(frame)"}": ${problem}`;
}

/**
 * The members that name a call. Not `action`: it would make every scan read
 * to the end (most frames have none), and a fire-and-forget call rarely
 * carries an invocation id, so its sender gets no answer anyway.
 */
const ENVELOPE = ["type", "invocation_id", "function_id"];

/**
 * The call a frame too large to be parsed belongs to, read from the first
 * members of its text (only the envelope's are parsed), when it is a call or
 * a result with ids.
 */
export function callOfText(text: string): RefusedCall | undefined {
  const texts = firstMemberTexts(text, ENVELOPE) ?? {};
  const envelope: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(texts)) {
    if (value.length > 1024) continue; // an id is short; a long one is not worth reading
    try {
      envelope[key] = JSON.parse(value);
    } catch { /* not JSON after all: left out */ }
  }
  return callOf(envelope);
}

/** `refusal` with the {@link RefusedCall} of `raw`, when it is a call or a result with ids. */
function withCall(refusal: ParseOutcome & { ok: false }, raw: unknown): ParseOutcome {
  const call = callOf(raw);
  return call ? { ...refusal, call } : refusal;
}

function callOf(raw: unknown): RefusedCall | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const { type, invocation_id: id, function_id: fn, action } = raw as Record<string, unknown>;
  if (type !== "invokefunction" && type !== "invocationresult") return undefined;
  if (typeof id !== "string" || id === "") return undefined;
  // A fire-and-forget call has nobody waiting for its answer.
  if ((action as { type?: unknown } | null)?.type === "void") return undefined;
  const call: RefusedCall = { type, invocationId: id };
  if (typeof fn === "string") call.functionId = fn;
  return call;
}

/** A bracket-depth scan of the text (strings skipped), for frames that are not valid JSON. */
function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash escapes the next char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_DEPTH) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

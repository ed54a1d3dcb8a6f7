/**
 * Turns the text of one WebSocket frame into a validated inbound frame, or an
 * error that says what was wrong with it. Never throws.
 *
 * @module
 */
import type { z } from "zod";
import { type InboundFrame, inboundFrames, type InboundType } from "./frames.ts";
import { ErrorCode } from "./errors.ts";

export type ParseOutcome =
  | { ok: true; frame: InboundFrame }
  | { ok: false; code: string; message: string; skip?: boolean };

/** Nesting deeper than this is refused before JSON.parse can blow the stack. */
const MAX_DEPTH = 512;

export function parseFrame(text: string): ParseOutcome {
  if (text.trim() === "") {
    return { ok: false, code: ErrorCode.InvalidFrame, message: "", skip: true };
  }
  if (text.length > MAX_DEPTH && tooDeep(text)) {
    return {
      ok: false,
      code: ErrorCode.InvalidFrame,
      message: `Frame is nested more than ${MAX_DEPTH} levels deep`,
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      code: ErrorCode.InvalidJson,
      message: `Frame is not valid JSON: ${(e as Error).message}`,
    };
  }
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
  const schema = (inboundFrames as Record<string, z.ZodType | undefined>)[type];
  if (!schema) {
    return {
      ok: false,
      code: ErrorCode.UnknownFrameType,
      message: `Frame type "${type.slice(0, 64)}" is not part of the protocol`,
    };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "(frame)";
    return {
      ok: false,
      code: ErrorCode.InvalidFrame,
      message: `Invalid "${type as InboundType}" frame: field "${field}": ${issue.message}`,
    };
  }
  return { ok: true, frame: parsed.data as InboundFrame };
}

/** A cheap bracket-depth scan (strings skipped) run before JSON.parse. */
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

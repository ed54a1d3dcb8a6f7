/**
 * The errors of a channel end, as {@linkcode EngineError}s:
 *
 * | `code` | When |
 * | --- | --- |
 * | `channel_refused` | the engine refused to open the end (an unknown id or wrong key: 404; opened already: 409) |
 * | `channel_broken` | the end's connection failed, or (reader) the writer broke off |
 * | `channel_closed` | (writer) the engine closed the end, e.g. because the reader went away; or it was closed already |
 *
 * @module
 */

import { EngineError } from "../errors.ts";
import type { CloseEvent } from "../websocket/client.ts";
import { HandshakeError } from "../websocket/handshake.ts";
import type { ChannelRef } from "./ref.ts";

/**
 * The error for an end whose socket closed other than as asked: `error` is
 * what failed the connection, if anything did (a close frame's code, when one
 * came, says more than an error after it).
 *
 * @example
 * ```ts
 * const ref = { channel_id: "c1", access_key: "k", direction: "read" } as const;
 * const err = channelFailure(ref, { code: 1011, reason: "writer broke off", wasClean: true });
 * console.log(err.code, err.message); // channel_broken Channel "c1" broke off: the engine closed the reader (code 1011: writer broke off)
 * ```
 */
export function channelFailure(ref: ChannelRef, event: CloseEvent, error?: Error): EngineError {
  const id = JSON.stringify(ref.channel_id);
  const end = ref.direction === "read" ? "reader" : "writer";
  if (error instanceof HandshakeError && error.status !== undefined) {
    return new EngineError(
      "channel_refused",
      `Channel ${id}: the engine refused to open its ${end} (HTTP ${error.status}): ${
        refusalMessage(error)
      }`,
      { cause: error },
    );
  }
  // A close frame explains more than a socket error after it (EPIPE, say).
  if (error && event.code === 1006) {
    return new EngineError("channel_broken", `Channel ${id} broke off: ${error.message}`, {
      cause: error,
    });
  }
  const how = event.code === 1006
    ? "its connection dropped (no close frame)"
    : `the engine closed the ${end} (code ${event.code}${event.reason ? `: ${event.reason}` : ""})`;
  if (ref.direction === "write") {
    return new EngineError("channel_closed", `Channel ${id} cannot be written to: ${how}`);
  }
  return new EngineError("channel_broken", `Channel ${id} broke off: ${how}`);
}

/** The message of the engine's JSON error body, else the handshake error's own. */
function refusalMessage(error: HandshakeError): string {
  try {
    const body = JSON.parse(error.body) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === "string") return body.error.message;
  } catch {
    // not the engine's JSON body
  }
  return error.message;
}

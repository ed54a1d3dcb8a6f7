/**
 * What both servers do once a socket is open: a worker socket gets a
 * {@linkcode WebSocketSession}, an `/otel` socket hands its telemetry on.
 *
 * @module
 */
import { WebSocketSession } from "../session.ts";
import type { ServerOptions } from "./options.ts";
import type { EngineSocket } from "./socket.ts";
import type { Route } from "./route.ts";
import { BATCH_PROTOCOL, offersProtocol } from "../../sdk/typescript/batch.ts";

const decoder = new TextDecoder();

/**
 * The subprotocol the server chooses for an upgrade to `route` whose
 * `Sec-WebSocket-Protocol` header is `offered`: `engine.batch.v1` for a
 * worker's socket that offers it (not `/otel`, which carries binary
 * telemetry, nor a channel's end), else none.
 */
export function chosenProtocol(
  route: Route,
  offered: string | null | undefined,
): string | undefined {
  const worker = route.kind === "upgrade" && route.path === "/";
  return worker && offersProtocol(offered, BATCH_PROTOCOL) ? BATCH_PROTOCOL : undefined;
}

/** A session for a worker connected on `socket`; `batch`: it chose the `engine.batch.v1` subprotocol. */
export function openSession(
  socket: EngineSocket,
  remoteAddress: string,
  options: ServerOptions,
  batch: boolean,
): WebSocketSession {
  return new WebSocketSession(options.engine, socket, {
    batch,
    log: options.log,
    maxFrameBytes: options.maxFrameBytes,
    maxBacklogBytes: options.maxBacklogBytes,
    remoteAddress,
    ...(options.onTelemetry ? { onTelemetry: options.onTelemetry } : {}),
  });
}

/** One binary message of an `/otel` socket: a 4-byte kind (`OTLP`, `LOGS`, `MTRC`), then JSON. */
export function receiveTelemetry(bytes: Uint8Array, options: ServerOptions): void {
  if (bytes.length < 4) return;
  const kind = decoder.decode(bytes.subarray(0, 4));
  options.onTelemetry?.(undefined, kind, decoder.decode(bytes.subarray(4)));
}

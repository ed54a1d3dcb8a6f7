/**
 * What both WebSocket servers take and give back.
 *
 * @module
 */
import type { Logger } from "../api.ts";
import type { ChannelRegistry } from "../channels/registry.ts";
import type { Readiness } from "../health.ts";
import type { Engine, WorkerConn } from "../core.ts";
import type { WebSocketSession } from "../session.ts";
import type { TransportName } from "./select.ts";

export interface ServerOptions {
  engine: Engine;
  log: Logger;
  hostname: string;
  port: number;
  maxFrameBytes: number;
  maxBacklogBytes: number;
  /** When set, worker connections must send `Authorization: Bearer <token>`. */
  token?: string;
  /** Which server runs; default `deno`. */
  transport?: TransportName;
  onTelemetry?: (conn: WorkerConn | undefined, kind: string, json: string) => void;
  /** The data channels `/ws/channels/{id}` serves; without it none are offered. */
  channels?: ChannelRegistry;
  /** What `/health` and `/health/ready` say; always `ok` without it. */
  health?: Readiness;
}

export interface EngineServer {
  hostname: string;
  port: number;
  sessions: Set<WebSocketSession>;
  /** Closes every socket and stops listening. */
  shutdown(): Promise<void>;
  finished: Promise<void>;
}

/** Seconds without a frame from a worker before it is pinged; no answer for as long again closes it. */
export const IDLE_TIMEOUT_S = 30;

/** How long shutdown waits for sockets to finish their closing handshake. */
export const SHUTDOWN_WAIT_MS = 2000;

/** The close code and reason every socket gets at shutdown. */
export const SHUTDOWN_CLOSE = { code: 1001, reason: "engine shutting down" } as const;

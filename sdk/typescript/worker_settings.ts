/**
 * What a worker's options (and the environment) make of its name, its
 * default call time-out and its connection: the token becomes an
 * `Authorization` header unless one is given, and every unset option takes
 * its default.
 *
 * @module
 */

import { type ConnectionSettings, DEFAULT_RECONNECT } from "./connection.ts";
import { hostName, processId, readEnv } from "./env.ts";
import type { WorkerOptions } from "./types.ts";

export interface WorkerSettings {
  /** The name reported to the engine. */
  name: string;
  invocationTimeoutMs: number;
  connection: ConnectionSettings;
}

/** Throws a `TypeError` naming `url` unless it is a ws:// or wss:// URL. */
export function workerSettings(url: string, options: WorkerOptions): WorkerSettings {
  const target = new URL(url);
  if (target.protocol !== "ws:" && target.protocol !== "wss:") {
    throw new TypeError(`Invalid engine URL "${url}": expected a ws:// or wss:// URL`);
  }
  const headers = { ...options.headers };
  const token = options.token ?? readEnv("ENGINE_TOKEN");
  if (token && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    headers["Authorization"] = `Bearer ${token}`;
  }
  return {
    name: options.worker_name ?? options.workerName ?? readEnv("ENGINE_WORKER_NAME") ??
      `${hostName() ?? "worker"}:${processId()}`,
    invocationTimeoutMs: options.invocationTimeoutMs ?? 30_000,
    connection: {
      url,
      headers,
      reconnect: { ...DEFAULT_RECONNECT, ...options.reconnect },
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 20_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
      maxMessageSize: options.maxMessageSize ?? 64 * 1024 * 1024,
      tls: options.tls,
    },
  };
}

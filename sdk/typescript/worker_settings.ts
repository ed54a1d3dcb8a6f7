/**
 * What a worker's options (and the environment) make of its name, its
 * default call time-out and its connection: the token becomes an
 * `Authorization` header unless one is given, and every unset option takes
 * its default.
 *
 * @module
 */

import { BATCH_BYTES } from "./batch.ts";
import { type ConnectionSettings, DEFAULT_RECONNECT } from "./connection.ts";
import { hostName, processId, readEnv } from "./env.ts";
import { buildRequest } from "./websocket/handshake.ts";
import type { WorkerOptions } from "./types.ts";

/**
 * The largest message of several frames the engine sends with `engine.batch.v1`:
 * {@linkcode BATCH_BYTES} UTF-16 units, each at most 3 bytes of UTF-8.
 */
const LARGEST_BATCH = 3 * BATCH_BYTES;

export interface WorkerSettings {
  /** The name reported to the engine. */
  name: string;
  invocationTimeoutMs: number;
  connection: ConnectionSettings;
}

/**
 * Throws a `TypeError` naming `url` unless it is a ws:// or wss:// URL, and one
 * naming the header (and `ENGINE_TOKEN` when the token came from there) when a
 * header cannot go on the upgrade request: these fail at once rather than on
 * every reconnect attempt, forever.
 */
export function workerSettings(url: string, options: WorkerOptions): WorkerSettings {
  const from = url === readEnv("ENGINE_URL") ? " (from ENGINE_URL)" : "";
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new TypeError(`Invalid engine URL "${url}"${from}: expected a ws:// or wss:// URL`);
  }
  if (target.protocol !== "ws:" && target.protocol !== "wss:") {
    throw new TypeError(`Invalid engine URL "${url}"${from}: expected a ws:// or wss:// URL`);
  }
  const headers = { ...options.headers };
  const token = options.token ?? readEnv("ENGINE_TOKEN");
  if (token && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    if (/[\r\n\0]/.test(token)) {
      const source = options.token === undefined ? "ENGINE_TOKEN" : 'Option "token"';
      throw new TypeError(
        `${source} cannot be sent as a bearer token: it holds a line break or NUL (a trailing newline from a file?)`,
      );
    }
    headers["Authorization"] = `Bearer ${token}`;
  }
  buildRequest(target, "", headers); // throws a TypeError naming a header it cannot send
  const maxMessageSize = options.maxMessageSize ?? 64 * 1024 * 1024;
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
      maxMessageSize,
      tls: options.tls,
      // A limit a batch can exceed would fail the connection (1009) on frames each within it.
      batchFrames: (options.batchFrames ?? true) && maxMessageSize >= LARGEST_BATCH,
    },
  };
}

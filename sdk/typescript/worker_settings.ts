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
 * Throws a `TypeError` naming `url` unless it is a ws:// or wss:// URL, one
 * naming the header (and `ENGINE_TOKEN` when the token came from there) when a
 * header cannot go on the upgrade request, and one naming the option for a
 * number option the timers cannot use: these fail at once rather than on every
 * reconnect attempt, forever, or as a time-out that never fires.
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
  check("maxMessageSize", maxMessageSize, (n) => Number.isInteger(n) && n > 0, WHOLE_BYTES);
  const reconnect = { ...DEFAULT_RECONNECT, ...options.reconnect };
  const { initialDelayMs, maxDelayMs, backoffMultiplier, jitterFactor } = reconnect;
  check("reconnect.initialDelayMs", initialDelayMs, (n) => n >= 0, "a number of at least 0");
  check("reconnect.maxDelayMs", maxDelayMs, (n) => n >= 0, "a number of at least 0");
  check("reconnect.backoffMultiplier", backoffMultiplier, (n) => n >= 1, "a number of at least 1");
  check("reconnect.jitterFactor", jitterFactor, (n) => n >= 0 && n <= 1, "a number from 0 to 1");
  const name = options.worker_name ?? options.workerName;
  if (name !== undefined && typeof name !== "string") {
    const option = options.worker_name === undefined ? "workerName" : "worker_name";
    throw new TypeError(`Invalid option "${option}": expected a string, got ${shown(name)}`);
  }
  return {
    name: name ?? readEnv("ENGINE_WORKER_NAME") ?? `${hostName() ?? "worker"}:${processId()}`,
    invocationTimeoutMs: positive("invocationTimeoutMs", options.invocationTimeoutMs, 30_000),
    connection: {
      url,
      headers,
      reconnect,
      heartbeatIntervalMs: positive("heartbeatIntervalMs", options.heartbeatIntervalMs, 20_000),
      idleTimeoutMs: positive("idleTimeoutMs", options.idleTimeoutMs, 60_000),
      handshakeTimeoutMs: positive("handshakeTimeoutMs", options.handshakeTimeoutMs, 10_000),
      maxMessageSize,
      tls: options.tls,
      // A limit a batch can exceed would fail the connection (1009) on frames each within it.
      batchFrames: (options.batchFrames ?? true) && maxMessageSize >= LARGEST_BATCH,
    },
  };
}

const WHOLE_BYTES = "a whole number of bytes above 0";

/**
 * `value` (else `fallback`) when it is a finite number above 0. NaN, a
 * string or 0 passed through to the timers: a time-out that never fires, a
 * heartbeat in a busy loop.
 */
function positive(option: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  check(option, n, (v) => v > 0, "a number above 0");
  return n;
}

/** Throws a `TypeError` naming `option` unless `value` is a finite number that `ok` accepts. */
function check(option: string, value: unknown, ok: (n: number) => boolean, expected: string) {
  if (typeof value === "number" && Number.isFinite(value) && ok(value)) return;
  throw new TypeError(`Invalid option "${option}": expected ${expected}, got ${shown(value)}`);
}

/** A value as an error message shows it: strings quoted, NaN and Infinity by name. */
export function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

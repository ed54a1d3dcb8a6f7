/**
 * Connecting to Redis (`ioredis`) the way every Redis adapter of the built-in
 * workers does: connection trouble reported once per distinct error, the URL
 * redacted wherever it is shown.
 *
 * @module
 */

import type { Redis } from "ioredis";
import type { Logger } from "../../engine/api.ts";

/** Options of {@link connectRedis}. */
export interface RedisConnectOptions {
  /** `redis://[user:password@]host[:port][/db]` or `rediss://…`. */
  url: string;
  /** Where connection trouble is reported. */
  log?: Logger;
  /**
   * How long a command waits for Redis's answer before it fails (a Redis that
   * hangs, or a network that drops packets without closing the connection);
   * none when omitted.
   */
  commandTimeoutMs?: number;
}

/**
 * Connects to `options.url`; rejects when Redis does not answer. While the
 * connection is down, ioredis holds commands and retries; one that gives up
 * fails with `Redis at <url> is unreachable: <the connection's last error>`
 * (not ioredis's wording), and the connection coming back is logged.
 */
export async function connectRedis(options: RedisConnectOptions): Promise<Redis> {
  // Loaded on first use: ioredis is ~30 ms of the engine's start-up otherwise.
  const { Redis } = await import("ioredis");
  const redis = new Redis(options.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeout: options.commandTimeoutMs }),
  });
  const where = redactUrl(options.url);
  let lastError = "";
  let reported = "";
  redis.on("error", (error: Error) => {
    lastError = error.message;
    // ioredis reconnects by itself; report each distinct trouble once.
    if (error.message === reported) return;
    reported = error.message;
    options.log?.warn(`Redis connection trouble at ${where}: ${error.message}`);
  });
  redis.on("ready", () => {
    if (reported !== "") options.log?.info(`Redis connection at ${where} is back`);
    lastError = reported = "";
  });
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand =
    ((...args: Parameters<typeof send>) =>
      (send(...args) as Promise<unknown>).catch((error: unknown) => {
        if (connectionLost(error)) throw unreachable(where, lastError, error);
        if (timedOut(error)) throw noAnswer(where, options.commandTimeoutMs, error);
        throw error;
      })) as typeof send;
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const detail = connectionLost(error) && lastError !== ""
      ? lastError
      : error instanceof Error
      ? error.message
      : String(error);
    throw new Error(`Cannot connect to Redis at ${where}: ${detail}`, { cause: error });
  }
  return redis;
}

/** Whether ioredis gave up on a command because the connection is down. */
function connectionLost(error: unknown): boolean {
  return error instanceof Error &&
    (error.name === "MaxRetriesPerRequestError" || error.message === "Connection is closed.");
}

/** Whether ioredis gave up waiting for an answer (`commandTimeout`). */
function timedOut(error: unknown): boolean {
  return error instanceof Error && error.message === "Command timed out";
}

function noAnswer(where: string, timeoutMs: number | undefined, cause: unknown): Error {
  return new Error(
    `Redis at ${where} did not answer within ${timeoutMs} ms: what it was sent may still take effect when it answers`,
    { cause },
  );
}

function unreachable(where: string, lastError: string, cause: unknown): Error {
  const why = lastError === "" ? "the connection was lost" : lastError;
  return new Error(`Redis at ${where} is unreachable: ${why}`, { cause });
}

/** How long {@link closeRedis} waits for Redis to answer its goodbye. */
export const QUIT_WAIT_MS = 1000;

/**
 * Says goodbye to the server (QUIT), waiting at most {@link QUIT_WAIT_MS} for
 * its answer, then drops the socket: a Redis that hangs, or a network that
 * keeps the connection open without delivering, would otherwise hold every
 * caller's stop for the command time-out (or for ever without one).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quit = redis.quit().catch(() => {
    // Already gone, or no answer: nothing to release but the socket.
  });
  await Promise.race([quit, new Promise((resolve) => timer = setTimeout(resolve, QUIT_WAIT_MS))]);
  clearTimeout(timer);
  redis.disconnect();
}

/** The URL with any password replaced by `***`, fit for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

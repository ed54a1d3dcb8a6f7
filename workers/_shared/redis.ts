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
}

/** Connects to `options.url`; rejects when Redis does not answer. */
export async function connectRedis(options: RedisConnectOptions): Promise<Redis> {
  // Loaded on first use: ioredis is ~30 ms of the engine's start-up otherwise.
  const { Redis } = await import("ioredis");
  const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  let lastError = "";
  redis.on("error", (error: Error) => {
    // ioredis reconnects by itself; report each distinct trouble once.
    if (error.message === lastError) return;
    lastError = error.message;
    options.log?.warn(`Redis connection trouble at ${redactUrl(options.url)}: ${error.message}`);
  });
  redis.on("ready", () => lastError = "");
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Cannot connect to Redis at ${redactUrl(options.url)}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
  return redis;
}

/** Says goodbye to the server when it still answers, then drops the socket. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    // Already gone: nothing to release but the socket.
  }
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

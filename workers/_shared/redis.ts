/**
 * Connecting to Redis (`ioredis`) the way every Redis adapter of the built-in
 * workers does: an outage logged in a few lines however long it lasts,
 * commands failing at once once it is established, the URL checked before
 * connecting and redacted wherever it is shown.
 *
 * @module
 */

import type { Redis } from "ioredis";
import type { Logger } from "../../engine/api.ts";
import { connectionLost, guardCommands } from "./redis_commands.ts";
import { RedisGate } from "./redis_gate.ts";
import { RedisOutageLog } from "./redis_outage.ts";
import { answersWithoutTls } from "./redis_probe.ts";
import { redactUrl, redisDatabase, wantsTls } from "./redis_url.ts";

export { redactUrl, redisDatabase, redisDatabaseText } from "./redis_url.ts";

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
  /** How long making the connection (TCP, and TLS for `rediss://`) may take; ioredis's 10 s by default. */
  connectTimeoutMs?: number;
  /**
   * How long after the connection is lost commands still wait for it to come
   * back before failing at once; default `BLIP_MS` of `redis_gate.ts`.
   */
  blipMs?: number;
}

/**
 * Connects to `options.url`; rejects when Redis does not answer, refuses the
 * password, or has no database of the number the URL names, and throws
 * before connecting when the URL names a database that is not a number or
 * has a parameter not in `URL_PARAMETERS` (`redis_url.ts`).
 *
 * While the connection is down, ioredis reconnects. A command issued then
 * waits for the first reconnect (a blip), at most `blipMs` after the loss;
 * once a reconnect attempt failed, or that wait ran out, the outage is
 * established: waiting commands that were not sent and every new one fail
 * at once with `Redis at <url> is unreachable: <the connection's last
 * error>`, until the connection is ready again. Commands sent before the
 * loss keep waiting for their answer (ioredis sends them again), up to
 * `commandTimeoutMs`. With `options.log`, an outage is logged in a bounded
 * number of lines (see {@link RedisOutageLog}) and the failures it causes are
 * marked as logged (see `store_outage.ts`).
 */
export async function connectRedis(options: RedisConnectOptions): Promise<Redis> {
  const where = redactUrl(options.url);
  const db = redisDatabase(options.url);
  // Loaded on first use: ioredis is ~30 ms of the engine's start-up otherwise.
  const { Redis } = await import("ioredis");
  const redis = new Redis(options.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    retryStrategy: reconnectDelay,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeout: options.commandTimeoutMs }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeout: options.connectTimeoutMs }),
  });
  const outages = options.log === undefined
    ? undefined
    : new RedisOutageLog({ where, log: options.log });
  let connected = false;
  let lastError = "";
  /** An error Redis answered while the connection was being set up (a failed SELECT). */
  let refused: Error | undefined;
  const gate = new RedisGate({
    ...(options.blipMs === undefined ? {} : { blipMs: options.blipMs }),
    onFailure(cause) {
      outages?.unreachable(cause);
      commands.failWaiting(cause);
    },
  });
  const commands = guardCommands(redis, {
    where,
    commandTimeoutMs: options.commandTimeoutMs,
    gate,
    outages,
    lastError: () => lastError,
  });
  redis.on("error", (error: Error) => {
    lastError = error.message;
    if (!connected) {
      if (error.name === "ReplyError") refused ??= error;
      return;
    }
    // The live connection broke: whether Redis is unreachable is for the reconnect to tell.
    if (redis.status !== "ready") gate.failed(error.message);
  });
  redis.on("reconnecting", () => {
    if (connected) gate.lost(() => lastError || "the connection was lost");
  });
  redis.on("ready", () => {
    lastError = "";
    gate.ready();
    outages?.reachable();
  });
  redis.on("end", () => gate.close());
  try {
    await redis.connect();
    if (refused !== undefined) throw refused;
  } catch (error) {
    redis.disconnect();
    const detail = connectionLost(error) && lastError !== ""
      ? lastError
      : error instanceof Error
      ? error.message
      : String(error);
    const hint = hintFor(detail, db) || await tlsHint(options.url, detail);
    throw new Error(`Cannot connect to Redis at ${where}: ${detail}${hint}`, { cause: error });
  }
  connected = true;
  return redis;
}

/**
 * The longest wait between two reconnect attempts (ioredis's default grows
 * to 5 s): calls fail at once during an outage, so this bounds how long they
 * go on failing once Redis is back.
 */
export const RECONNECT_MAX_MS = 1000;

/** The wait before reconnect attempt `attempt` (from 1): doubling from 50 ms, with some jitter. */
function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt - 1, 10), RECONNECT_MAX_MS) +
    Math.floor(Math.random() * 100);
}

/** What to check when Redis refused the connection with `detail`. */
function hintFor(detail: string, db: number): string {
  if (/DB index is out of range/i.test(detail)) {
    return `: the server has no database ${db} (the number after the host in "url"; a server has 16 unless its "databases" setting says otherwise)`;
  }
  if (/WRONGPASS|invalid password|invalid username-password/i.test(detail)) {
    return ': check the user and password in "url" (redis://<user>:<password>@host)';
  }
  if (/NOAUTH/.test(detail)) {
    return ': the server requires a password: give it in "url" (redis://:<password>@host)';
  }
  return "";
}

/**
 * What to check when a `rediss://` connection failed without a word from
 * Redis (it timed out, or broke off): whether the server speaks TLS at all.
 */
async function tlsHint(url: string, detail: string): Promise<string> {
  if (!wantsTls(url) || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|certificate|CERT_/i.test(detail)) {
    return "";
  }
  const { host } = new URL(url);
  if (await answersWithoutTls(url)) {
    return `: "url" asks for TLS (rediss://) but the server at ${host} answers without TLS: use redis://, or enable TLS on the server`;
  }
  return `: "url" asks for TLS (rediss://): if the server at ${host} does not speak TLS, use redis://`;
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

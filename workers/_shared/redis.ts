/**
 * Connecting to Redis (`ioredis`) the way every Redis adapter of the built-in
 * workers does: an outage logged in a few lines however long it lasts, the
 * URL redacted wherever it is shown.
 *
 * @module
 */

import type { Redis } from "ioredis";
import type { Logger } from "../../engine/api.ts";
import { RedisOutageLog } from "./redis_outage.ts";
import { markLoggedOutage } from "./store_outage.ts";

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
 * Connects to `options.url`; rejects when Redis does not answer, refuses the
 * password, or has no database of the number the URL names. While the
 * connection is down, ioredis holds commands and retries; one that gives up
 * fails with `Redis at <url> is unreachable: <the connection's last error>`
 * (not ioredis's wording). With `options.log`, an outage is logged in a
 * bounded number of lines (see {@link RedisOutageLog}) and the failures it
 * causes are marked as logged (see `store_outage.ts`).
 */
export async function connectRedis(options: RedisConnectOptions): Promise<Redis> {
  const where = redactUrl(options.url);
  const db = redisDatabase(options.url);
  // Loaded on first use: ioredis is ~30 ms of the engine's start-up otherwise.
  const { Redis } = await import("ioredis");
  const redis = new Redis(options.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeout: options.commandTimeoutMs }),
  });
  const outages = options.log === undefined
    ? undefined
    : new RedisOutageLog({ where, log: options.log });
  let connected = false;
  let lastError = "";
  /** An error Redis answered while the connection was being set up (a failed SELECT). */
  let refused: Error | undefined;
  redis.on("error", (error: Error) => {
    lastError = error.message;
    if (connected) outages?.unreachable(error.message);
    else if (error.name === "ReplyError") refused ??= error;
  });
  redis.on("ready", () => {
    lastError = "";
    outages?.reachable();
  });
  /** `error`, marked as logged when an outage log has it (logging it first if it had not). */
  const reported = (error: Error, cause: string): Error => {
    if (outages === undefined) return error;
    outages.unreachable(cause);
    return markLoggedOutage(error, outages);
  };
  const send = redis.sendCommand.bind(redis);
  /** Each command's promise as callers see it; ioredis sends a command again after a reconnect. */
  const seen = new WeakMap<object, Promise<unknown>>();
  redis.sendCommand = ((...args: Parameters<typeof send>) => {
    const [command] = args;
    const known = seen.get(command);
    if (known !== undefined) {
      // Sent again once the connection is back. One that already failed (it timed out waiting
      // for the connection) stays unsent: its caller was told it failed, so it must not take
      // effect after all (and its failure, handed to nobody now, was an uncaught rejection).
      if (!command.isSettled) void send(...args);
      return known;
    }
    const answered = (send(...args) as Promise<unknown>).then(
      (answer) => {
        // Answered: a Redis that had stopped answering (no connection error) is back.
        if (outages?.down) outages.reachable();
        return answer;
      },
      (error: unknown) => {
        throw failure(error);
      },
    );
    seen.set(command, answered);
    return answered;
  }) as typeof send;
  /** The error a caller gets for `error`, ioredis's failure of a command. */
  const failure = (error: unknown): unknown => {
    const waiting = redis.status !== "ready" && lastError !== "";
    if (connectionLost(error) || (timedOut(error) && waiting)) {
      const cause = lastError || "the connection was lost";
      return reported(unreachable(where, lastError, error), cause);
    }
    if (timedOut(error)) {
      const cause = `no answer within ${options.commandTimeoutMs} ms`;
      return reported(noAnswer(where, options.commandTimeoutMs, error), cause);
    }
    return error;
  };
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
    throw new Error(`Cannot connect to Redis at ${where}: ${detail}${hintFor(detail, db)}`, {
      cause: error,
    });
  }
  connected = true;
  return redis;
}

/**
 * The database number `url` names (its path, or its `db` parameter, which
 * ioredis reads too); 0 when none. One that is not a number is refused:
 * ioredis would send `SELECT NaN`, and its failure was thrown where nothing
 * caught it.
 */
export function redisDatabase(url: string): number {
  if (!URL.canParse(url)) throw new Error(`Invalid Redis URL ${redactUrl(url)}: it is not a URL`);
  const given = redisDatabaseText(url);
  if (given === "") return 0;
  if (!/^\d{1,9}$/.test(given)) {
    throw new Error(
      `Invalid Redis URL ${
        redactUrl(url)
      }: the database after the host must be a number such as "/0", not ${JSON.stringify(given)}`,
    );
  }
  return Number(given);
}

/** The database a parsable `url` names, as written (`""` for none): see {@link redisDatabase}. */
export function redisDatabaseText(url: string): string {
  const parsed = new URL(url);
  return parsed.searchParams.get("db") ?? parsed.pathname.slice(1);
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

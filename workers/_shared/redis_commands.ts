/**
 * The commands of one Redis connection as {@link connectRedis} hands them
 * out: wrapped at ioredis's `sendCommand`, so that a command fails with
 * `Redis at <url> is unreachable: <cause>` (not ioredis's wording) while
 * Redis cannot be reached, fails at once during an established outage (see
 * `redis_gate.ts`) instead of waiting in ioredis's offline queue, and is
 * never sent once its caller was told it failed.
 *
 * @module
 */

import type { Command, Redis } from "ioredis";
import type { RedisGate } from "./redis_gate.ts";
import type { RedisOutageLog } from "./redis_outage.ts";
import { markLoggedOutage } from "./store_outage.ts";

/** What {@link guardCommands} needs to know of the connection. */
export interface CommandGuardOptions {
  /** The URL as errors show it (password redacted). */
  where: string;
  commandTimeoutMs: number | undefined;
  gate: RedisGate;
  outages: RedisOutageLog | undefined;
  /** The connection's last error message; `""` once it is ready. */
  lastError(): string;
}

/** The commands waiting for the connection, to fail when a reconnect attempt fails. */
export interface GuardedCommands {
  /**
   * Fails, with `cause`, each command issued while the connection was down
   * that was not written to Redis yet: it waited for this attempt only.
   */
  failWaiting(cause: string): void;
}

/** A command refused, or no longer waited for, because Redis is unreachable. */
class Unreachable extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`Redis is unreachable: ${reason}`);
    this.name = "RedisUnreachable";
    this.reason = reason;
  }
}

/** Wraps `redis.sendCommand` (see the module's description). */
export function guardCommands(redis: Redis, options: CommandGuardOptions): GuardedCommands {
  const { where, gate, outages } = options;
  const send = redis.sendCommand.bind(redis);
  /** Each command's promise as callers see it; ioredis sends a command again after a reconnect. */
  const seen = new WeakMap<object, Promise<unknown>>();
  /** Commands issued while the connection was down, not written yet. */
  const waiting = new Set<Command>();

  /** `error`, marked as logged when an outage log has it (logging it first if it had not). */
  const reported = (error: Error, cause: string): Error => {
    if (redis.status !== "ready") gate.failed(cause);
    else outages?.unreachable(cause);
    return outages === undefined ? error : markLoggedOutage(error, outages);
  };
  /** The error a caller gets for `error`, ioredis's failure of a command. */
  const failure = (error: unknown): unknown => {
    if (error instanceof Unreachable) {
      const failed = unreachable(where, error.reason, error);
      return outages === undefined ? failed : markLoggedOutage(failed, outages);
    }
    const lastError = options.lastError();
    const waitingForConnection = redis.status !== "ready" && lastError !== "";
    if (connectionLost(error) || (timedOut(error) && waitingForConnection)) {
      return reported(unreachable(where, lastError, error), lastError || CONNECTION_LOST);
    }
    if (timedOut(error)) {
      const cause = `no answer within ${options.commandTimeoutMs} ms`;
      return reported(noAnswer(where, options.commandTimeoutMs, error), cause);
    }
    return error;
  };

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
    const status = redis.status;
    // The commands ioredis sets a new connection up with go through while it is not ready.
    const own = status === "connect" && SETUP_COMMANDS.has(command.name.toLowerCase());
    let sent: Promise<unknown>;
    if (gate.cause !== undefined && status !== "ready" && !own) {
      command.reject(new Unreachable(gate.cause));
      sent = command.promise;
    } else {
      if (status !== "ready" && !own) waitFor(command, waiting);
      sent = send(...args) as Promise<unknown>;
    }
    const answered = sent.then(
      (answer) => {
        waiting.delete(command);
        // Answered: a Redis that had stopped answering (no connection error) is back.
        if (outages?.down) outages.reachable();
        return answer;
      },
      (error: unknown) => {
        waiting.delete(command);
        throw failure(error);
      },
    );
    seen.set(command, answered);
    return answered;
  }) as typeof send;

  return {
    failWaiting(cause) {
      const unsent = [...waiting];
      waiting.clear();
      // Never written, so failing them is safe: ioredis skips a settled command (see above).
      for (const command of unsent) if (!command.isSettled) command.reject(new Unreachable(cause));
    },
  };
}

/** Keeps `command` in `waiting` until ioredis writes it to Redis. */
function waitFor(command: Command, waiting: Set<Command>): void {
  const write = command.toWritable;
  command.toWritable = function (this: Command, socket: object) {
    waiting.delete(command);
    return write.call(this, socket);
  };
  waiting.add(command);
}

const CONNECTION_LOST = "the connection was lost";

/**
 * What ioredis sends while it sets a connection up (status `connect`): the
 * handshake and the ready check. The workers' own commands are none of these.
 */
const SETUP_COMMANDS = new Set(["hello", "auth", "select", "client", "readonly", "info"]);

/** Whether ioredis gave up on a command because the connection is down. */
export function connectionLost(error: unknown): boolean {
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
  const why = lastError === "" ? CONNECTION_LOST : lastError;
  return new Error(`Redis at ${where} is unreachable: ${why}`, { cause });
}

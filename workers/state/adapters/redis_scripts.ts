/**
 * The Lua scripts of the Redis state adapter, each a write that reads what it
 * replaces in the same step, and the marks that make them safe to send twice.
 *
 * When the connection breaks after Redis ran a script but before its answer
 * arrived, ioredis sends the script again on the new connection. Run twice, a
 * `set` would report its own value as the old one, a `delete` that nothing was
 * there (and no `state:deleted` event would fire), an `update` would apply its
 * ops twice. So each call names a mark, `state:\0write:<uuid>`: the script's
 * first run stores its answer there, a second run of the same call finds it
 * and answers the same without writing. The adapter removes the mark once it
 * has the answer; a mark it could not remove expires after a minute.
 *
 * @module
 */

import type { Redis } from "ioredis";

/**
 * The prefix of a mark. It is under `state:`, so a Redis ACL written for the
 * state's keys (`~state:*`) covers it, yet it is never a scope's hash: no scope
 * holds a NUL character (`input.ts`), and marks are strings, which
 * `listGroups` skips.
 */
export const MARK_PREFIX = "state:\u0000write:";

/** How long a mark nobody removed lives: longer than ioredis keeps sending a command again. */
export const MARK_TTL_MS = 60 * 1000;

// KEYS[1] hash, KEYS[2] mark, ARGV[1] field, ARGV[2] new text, ARGV[3] mark TTL (ms).
// Answers '=' followed by the old text, or '-' when the field was missing.
const SET_SCRIPT = `
local done = redis.call('GET', KEYS[2])
if done then return done end
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local answer = old and ('=' .. old) or '-'
redis.call('SET', KEYS[2], answer, 'PX', ARGV[3])
return answer`;

// KEYS[1] hash, KEYS[2] mark, ARGV[1] field, ARGV[2] mark TTL (ms).
// Answers '=' followed by the removed text, or '-' when the field was missing.
const DELETE_SCRIPT = `
local done = redis.call('GET', KEYS[2])
if done then return done end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return '-' end
redis.call('HDEL', KEYS[1], ARGV[1])
local answer = '=' .. old
redis.call('SET', KEYS[2], answer, 'PX', ARGV[2])
return answer`;

// KEYS[1] hash, KEYS[2] mark, ARGV[1] field, ARGV[2] '1' if the field was read
// with the text ARGV[3] or '0' if it was missing, ARGV[4] the new text, ARGV[5]
// mark TTL (ms). Answers 1 if written (now or by an earlier run of this call),
// 0 if the field no longer holds what was read.
const COMPARE_AND_SET_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return 0 end
elseif current then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[5])
return 1`;

/** The scripts as commands of the connection. */
export interface StateScripts {
  stateSet(hash: string, mark: string, field: string, text: string, ttl: number): Promise<string>;
  stateDelete(hash: string, mark: string, field: string, ttl: number): Promise<string>;
  stateCompareAndSet(
    hash: string,
    mark: string,
    field: string,
    existed: "0" | "1",
    expected: string,
    text: string,
    ttl: number,
  ): Promise<number>;
}

/** Defines the scripts on `redis` (loaded on first use, again after a Redis restart). */
export function defineStateScripts(redis: Redis): Redis & StateScripts {
  redis.defineCommand("stateSet", { numberOfKeys: 2, lua: SET_SCRIPT });
  redis.defineCommand("stateDelete", { numberOfKeys: 2, lua: DELETE_SCRIPT });
  redis.defineCommand("stateCompareAndSet", { numberOfKeys: 2, lua: COMPARE_AND_SET_SCRIPT });
  return redis as Redis & StateScripts;
}

/** A new mark for one call. */
export function newMark(): string {
  return MARK_PREFIX + crypto.randomUUID();
}

/** The text a set or delete replaced, from its answer; `undefined` when none was stored. */
export function replacedText(answer: string): string | undefined {
  return answer.startsWith("=") ? answer.slice(1) : undefined;
}

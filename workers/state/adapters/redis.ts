/**
 * The Redis state adapter (`ioredis`). A scope is the hash `state:<scope>`; a
 * key is a field holding the value's JSON text, the layout of the reference,
 * so engines pointed at one Redis share their state.
 *
 * `set` and `delete` are Lua scripts that read the old value and write in one
 * step. `update` is optimistic: it reads the field, applies the ops in
 * TypeScript (`update_ops.ts`, the same code as every adapter) and writes with
 * a compare-and-set script that refuses when the field changed in between, in
 * which case it reads again and retries. Updates to one key from this process
 * queue behind each other, so only other processes cause retries. Each update
 * leaves a mark (`state-write:<uuid>`) with its write, removed once answered:
 * when the connection breaks before Redis's answer arrives, the client sends
 * the write again, and the mark tells the script it already landed, so the ops
 * apply once.
 *
 * @module
 */

import type { Redis } from "ioredis";
import { closeRedis, connectRedis, type RedisConnectOptions } from "../../_shared/redis.ts";
import type { UpdateOp } from "../update_ops.ts";
import { compareKeys, decodeStored, encodeValue, type JsonValue } from "../values.ts";
import {
  type DeleteOutcome,
  planUpdate,
  type SetOutcome,
  type StateEntry,
  type StateStore,
  type StoreOptions,
  type UpdateOutcome,
} from "./store.ts";

/** Options of {@link RedisStore.connect}. */
export interface RedisStoreOptions extends StoreOptions, RedisConnectOptions {}

const PREFIX = "state:";
/**
 * How long a command waits for Redis by default: well within the engine's
 * default call time-out (30 s), so a Redis that hangs fails the call with an
 * error naming it rather than a bare time-out.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
/** How many times an update retries after another process changed the key. */
const MAX_UPDATE_ATTEMPTS = 1000;

// KEYS[1] hash, ARGV[1] field, ARGV[2] new text: returns the old text or nil.
const SET_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return old`;

// KEYS[1] hash, ARGV[1] field: returns the removed text or nil.
const DELETE_SCRIPT = `
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('HDEL', KEYS[1], ARGV[1]) end
return old`;

// KEYS[1] hash, KEYS[2] the update's mark, ARGV[1] field, ARGV[2] '1' if the
// field was read with the text ARGV[3] or '0' if it was missing, ARGV[4] the new
// text, ARGV[5] how long the mark lives in ms: 1 if written (now or by an earlier
// send of this same call, which left the mark), 0 if the field no longer matches
// what was read.
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

/** The prefix of an update's mark: outside `state:`, so never taken for a scope. */
const MARK_PREFIX = "state-write:";
/**
 * How long a mark outlives its write when nothing removes it (the update removes it
 * once answered): longer than the client keeps sending a command again.
 */
const MARK_TTL_MS = 60 * 1000;

interface StateScripts {
  stateSet(hash: string, field: string, text: string): Promise<string | null>;
  stateDelete(hash: string, field: string): Promise<string | null>;
  stateCompareAndSet(
    hash: string,
    mark: string,
    field: string,
    existed: "0" | "1",
    expected: string,
    text: string,
    markTtlMs: number,
  ): Promise<number>;
}

/** A {@link StateStore} in Redis. */
export class RedisStore implements StateStore {
  readonly adapter = "redis";
  readonly #redis: Redis & StateScripts;
  readonly #maxValueBytes: number;
  /** The tail of each key's queue of updates from this process. */
  readonly #updates = new Map<string, Promise<unknown>>();

  private constructor(redis: Redis, options: RedisStoreOptions) {
    redis.defineCommand("stateSet", { numberOfKeys: 1, lua: SET_SCRIPT });
    redis.defineCommand("stateDelete", { numberOfKeys: 1, lua: DELETE_SCRIPT });
    redis.defineCommand("stateCompareAndSet", { numberOfKeys: 2, lua: COMPARE_AND_SET_SCRIPT });
    this.#redis = redis as Redis & StateScripts;
    this.#maxValueBytes = options.maxValueBytes;
  }

  /** Connects to `options.url`; rejects when Redis does not answer. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return new RedisStore(await connectRedis({ ...options, commandTimeoutMs }), options);
  }

  async get(scope: string, key: string): Promise<JsonValue | undefined> {
    const text = await this.#inScope(scope, () => this.#redis.hget(PREFIX + scope, key));
    return text === null ? undefined : decodeStored(text);
  }

  async set(scope: string, key: string, value: JsonValue): Promise<SetOutcome> {
    const text = encodeValue(value, this.#maxValueBytes, { scope, key });
    const old = await this.#inScope(scope, () => this.#redis.stateSet(PREFIX + scope, key, text));
    return old === null
      ? { created: true, oldValue: null }
      : { created: false, oldValue: decodeStored(old) };
  }

  async delete(scope: string, key: string): Promise<DeleteOutcome> {
    const old = await this.#inScope(scope, () => this.#redis.stateDelete(PREFIX + scope, key));
    return old === null
      ? { existed: false, oldValue: null }
      : { existed: true, oldValue: decodeStored(old) };
  }

  update(scope: string, key: string, ops: readonly UpdateOp[]): Promise<UpdateOutcome> {
    const id = `${scope}\u0000${key}`;
    const previous = this.#updates.get(id) ?? Promise.resolve();
    const run = previous.then(() => this.#inScope(scope, () => this.#update(scope, key, ops)));
    const tail = run.catch(() => {});
    this.#updates.set(id, tail);
    tail.then(() => {
      if (this.#updates.get(id) === tail) this.#updates.delete(id);
    });
    return run;
  }

  async #update(scope: string, key: string, ops: readonly UpdateOp[]): Promise<UpdateOutcome> {
    const hash = PREFIX + scope;
    // One mark for every attempt: only one of them can write.
    const mark = MARK_PREFIX + crypto.randomUUID();
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      const stored = await this.#redis.hget(hash, key);
      const plan = planUpdate(stored ?? undefined, ops, {
        scope,
        key,
        maxValueBytes: this.#maxValueBytes,
      });
      if (plan.text === undefined) return plan.outcome;
      const written = await this.#redis.stateCompareAndSet(
        hash,
        mark,
        key,
        stored === null ? "0" : "1",
        stored ?? "",
        plan.text,
        MARK_TTL_MS,
      );
      if (written === 1) {
        // Answered: nothing sends this write again, the mark has done its job.
        this.#redis.del(mark).catch(() => {});
        return plan.outcome;
      }
      // Another process wrote in between: back off a little, at random, and retry.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 20)));
    }
    throw new Error(
      `Cannot update scope "${scope}" key "${key}": it kept changing during ${MAX_UPDATE_ATTEMPTS} attempts`,
    );
  }

  async list(scope: string): Promise<StateEntry[]> {
    const fields = await this.#inScope(scope, () => this.#redis.hgetall(PREFIX + scope));
    return Object.keys(fields).sort(compareKeys).map((key) => ({
      key,
      value: decodeStored(fields[key] as string),
    }));
  }

  async listGroups(): Promise<string[]> {
    const groups = new Set<string>();
    let cursor = "0";
    do {
      // Hashes only: another application's key under the same prefix is not a scope.
      const [next, keys] = await this.#redis.scan(
        cursor,
        "MATCH",
        `${PREFIX}*`,
        "COUNT",
        500,
        "TYPE",
        "hash",
      );
      for (const key of keys) groups.add(key.slice(PREFIX.length));
      cursor = next;
    } while (cursor !== "0");
    return [...groups].sort(compareKeys);
  }

  /**
   * Runs `work` on the hash of `scope`; a key of another type there (an
   * application sharing the database wrote it) is named in the error instead
   * of Redis's bare WRONGTYPE.
   */
  async #inScope<T>(scope: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!/WRONGTYPE/.test((error as Error)?.message ?? "")) throw error;
      const type = await this.#redis.type(PREFIX + scope).catch(() => "value of another type");
      throw new Error(
        `Scope ${JSON.stringify(scope)} cannot be used: Redis key ${
          JSON.stringify(PREFIX + scope)
        } holds a ${type}, not a hash of state (something else wrote it): use another scope, or another Redis database for the state`,
      );
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#updates.values());
    await closeRedis(this.#redis);
  }
}

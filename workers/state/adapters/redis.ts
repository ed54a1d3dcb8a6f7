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
 * queue behind each other, so only other processes cause retries. Every
 * script is safe to send twice (see `redis_scripts.ts`).
 *
 * @module
 */

import type { Redis } from "ioredis";
import { closeRedis, connectRedis, type RedisConnectOptions } from "../../_shared/redis.ts";
import type { UpdateOp } from "../update_ops.ts";
import { compareKeys, decodeStored, encodeValue, type JsonValue, quoteName } from "../values.ts";
import { DEFAULT_MAX_LIST_BYTES, listBound } from "../list_bound.ts";
import {
  defineStateScripts,
  MARK_TTL_MS,
  newMark,
  replacedText,
  type StateScripts,
} from "./redis_scripts.ts";
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

/** A {@link StateStore} in Redis. */
export class RedisStore implements StateStore {
  readonly adapter = "redis";
  readonly #redis: Redis & StateScripts;
  readonly #maxValueBytes: number;
  readonly #maxListBytes: number;
  /** The tail of each key's queue of updates from this process. */
  readonly #updates = new Map<string, Promise<unknown>>();

  private constructor(redis: Redis, options: RedisStoreOptions) {
    this.#redis = defineStateScripts(redis);
    this.#maxValueBytes = options.maxValueBytes;
    this.#maxListBytes = options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
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
    const old = await this.#marked((mark) =>
      this.#inScope(scope, () => this.#redis.stateSet(PREFIX + scope, mark, key, text, MARK_TTL_MS))
    );
    return old === undefined
      ? { created: true, oldValue: null }
      : { created: false, oldValue: decodeStored(old) };
  }

  async delete(scope: string, key: string): Promise<DeleteOutcome> {
    const old = await this.#marked((mark) =>
      this.#inScope(scope, () => this.#redis.stateDelete(PREFIX + scope, mark, key, MARK_TTL_MS))
    );
    return old === undefined
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
    const mark = newMark();
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
        this.#unmark(mark);
        return plan.outcome;
      }
      // Another process wrote in between: back off a little, at random, and retry.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 20)));
    }
    throw new Error(
      `Cannot update scope ${quoteName(scope)} key ${
        quoteName(key)
      }: it kept changing during ${MAX_UPDATE_ATTEMPTS} attempts`,
    );
  }

  async list(scope: string): Promise<StateEntry[]> {
    const fields = await this.#inScope(scope, () => this.#redis.hgetall(PREFIX + scope));
    // Counted once read: Redis sends the whole hash, but the caller gets no answer over the bound.
    const count = listBound(scope, this.#maxListBytes);
    for (const [key, text] of Object.entries(fields)) count(key, text);
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

  /** Runs a set or delete script under a new mark; the text it replaced, if any. */
  async #marked(run: (mark: string) => Promise<string>): Promise<string | undefined> {
    const mark = newMark();
    const answer = await run(mark);
    this.#unmark(mark);
    return replacedText(answer);
  }

  /** Answered: nothing sends that write again, so its mark has done its job. */
  #unmark(mark: string): void {
    this.#redis.del(mark).catch(() => {});
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
        `Scope ${quoteName(scope)} cannot be used: Redis key ${
          quoteName(PREFIX + scope)
        } holds a ${type}, not a hash of state (something else wrote it): use another scope, or another Redis database for the state`,
      );
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#updates.values());
    await closeRedis(this.#redis);
  }
}

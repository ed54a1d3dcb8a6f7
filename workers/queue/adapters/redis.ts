/**
 * The Redis queue adapter (`ioredis`). Engines pointed at one Redis share
 * their queues: each claims with Lua scripts, so a message goes to one of them
 * at a time. Per queue `<q>` the keys are:
 *
 * | key | type | holds |
 * | --- | --- | --- |
 * | `queue:<q>:due` | sorted set | live message ids, scored by when they are due (a lease's end while claimed) |
 * | `queue:<q>:dead` | sorted set | dead letter ids, scored by when they failed |
 * | `queue:<q>:leases` | hash | id → the current lease token of a claimed message |
 * | `queue:<q>:meta` | hash | id → `{f, t, tp?, bg?}`: function id, enqueue time, trace context |
 * | `queue:<q>:data` | hash | id → the payload's JSON text |
 * | `queue:<q>:attempts` | hash | id → failed deliveries so far |
 * | `queue:<q>:errors` | hash | id → the last error's JSON text |
 *
 * (Redis deletes a key once it is empty, so a drained queue leaves none) and
 * `queue:names` is the set of queue names (a queue's name leaves it when the
 * queue is forgotten); `queue:\0mark:<uuid>` is the
 * short-lived mark of one write, which makes it safe to send twice (see
 * `redis_scripts.ts`). Messages due at the same
 * millisecond come out in id order, not arrival order. Durability is that of
 * the Redis server: enable `appendonly` there for messages to survive a Redis
 * restart.
 *
 * @module
 */

import { parseExact } from "../../../engine/protocol/exact_json.ts";
import type { Redis } from "ioredis";
import type { ErrorBody } from "../../../engine/api.ts";
import { closeRedis, connectRedis, type RedisConnectOptions } from "../../_shared/redis.ts";
import type {
  ClaimedMessage,
  DeadLetterCut,
  DeadLetterList,
  DeadLetterPage,
  MessageMeta,
  NewMessage,
  QueueCounts,
  QueueStore,
  Reschedule,
} from "./store.ts";
import {
  type Arg,
  MARK_PREFIX,
  MARK_TTL_MS,
  type QueueKey,
  type QueueScripts,
  SCRIPTS,
} from "./redis_scripts.ts";

/** Options of {@link RedisStore.connect}. */
export type RedisStoreOptions = RedisConnectOptions;

const NAMES = "queue:names";
/**
 * How long a command waits for Redis by default: well within the engine's
 * default call time-out (30 s), so a Redis that hangs fails an enqueue with an
 * error naming it, and the dispatcher's claims end, rather than waiting for ever.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

/** The keys of one queue by name, the set of queue names and a call's mark. */
function keys(queue: string, mark: string): Record<QueueKey, string> {
  const k = (suffix: string) => `queue:${queue}:${suffix}`;
  return {
    due: k("due"),
    dead: k("dead"),
    leases: k("leases"),
    meta: k("meta"),
    data: k("data"),
    attempts: k("attempts"),
    errors: k("errors"),
    names: NAMES,
    mark,
  };
}

/** The static part of a message's metadata, as stored in `meta`. */
interface StaticMeta {
  f: string;
  t: number;
  tp?: string;
  bg?: string;
}

/** A {@link QueueStore} in Redis. */
export class RedisStore implements QueueStore {
  readonly adapter = "redis";
  readonly claimSkips = true;
  readonly #redis: Redis & QueueScripts;

  private constructor(redis: Redis) {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, { numberOfKeys: script.keys.length, lua: script.lua });
    }
    this.#redis = redis as Redis & QueueScripts;
  }

  /** Connects to `options.url`; rejects when Redis does not answer. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return new RedisStore(await connectRedis({ ...options, commandTimeoutMs }));
  }

  /**
   * Runs the script `name` on the keys of `queue` it takes, then `args` as its
   * `ARGV`; a script that writes also gets a new mark, removed once answered
   * (see `redis_scripts.ts`).
   */
  async #run<N extends keyof QueueScripts>(
    name: N,
    queue: string,
    ...args: Arg[]
  ): Promise<Awaited<ReturnType<QueueScripts[N]>>> {
    const script = SCRIPTS[name];
    const mark = script.marked ? MARK_PREFIX + crypto.randomUUID() : "";
    const k = keys(queue, mark);
    const scripts: QueueScripts = this.#redis;
    const reply = await scripts[name](
      ...script.keys.map((key) => k[key]),
      ...args,
      ...(script.marked ? [MARK_TTL_MS] : []),
    );
    // Answered: nothing sends this call again, the mark has done its job.
    if (script.marked) this.#redis.del(mark).catch(() => {});
    return reply as Awaited<ReturnType<QueueScripts[N]>>;
  }

  async enqueue(m: NewMessage): Promise<boolean> {
    const meta: StaticMeta = { f: m.functionId, t: m.enqueuedAt };
    if (m.traceparent !== undefined) meta.tp = m.traceparent;
    if (m.baggage !== undefined) meta.bg = m.baggage;
    const added = await this.#run(
      "queueEnqueue",
      m.queue,
      m.id,
      JSON.stringify(meta),
      m.dataText,
      m.enqueuedAt,
      m.queue,
    );
    return added === 1;
  }

  /**
   * Claims as the store interface says. Messages of the `skip` functions are
   * passed over among the first `limit` + `SKIP_WINDOW` (redis_scripts.ts) due ones; a
   * longer run of them is handed out (the dispatcher puts them back behind).
   */
  async claim(
    queue: string,
    now: number,
    limit: number,
    leaseUntil: number,
    skip: readonly string[] = [],
  ): Promise<ClaimedMessage[]> {
    if (limit <= 0) return [];
    const flat = await this.#run(
      "queueClaim",
      queue,
      now,
      limit,
      leaseUntil,
      crypto.randomUUID(),
      // cjson decodes an empty array as an empty object: the same to the script.
      JSON.stringify(skip),
    );
    return rowsOf(flat).map(([id, lease, meta, data, attempts, error]) => ({
      ...toMeta(queue, id, meta, attempts, error),
      data: parseExact(data),
      lease,
    }));
  }

  async ack(queue: string, id: string, lease: string): Promise<boolean> {
    return await this.#run("queueAck", queue, id, lease) === 1;
  }

  async reschedule(
    queue: string,
    id: string,
    lease: string,
    change: Reschedule,
  ): Promise<boolean> {
    const error = change.lastError === undefined ? "" : JSON.stringify(change.lastError);
    const done = await this.#run(
      "queueReschedule",
      queue,
      id,
      lease,
      change.visibleAt,
      change.attempts,
      error,
    );
    return done === 1;
  }

  async bury(
    queue: string,
    id: string,
    lease: string,
    end: { attempts: number; lastError: ErrorBody; failedAt: number },
  ): Promise<boolean> {
    const error = JSON.stringify(end.lastError);
    const done = await this.#run("queueBury", queue, id, lease, end.failedAt, end.attempts, error);
    return done === 1;
  }

  async nextDue(queue: string): Promise<number | undefined> {
    const first = await this.#redis.zrange(keys(queue, "").due, "0", "0", "WITHSCORES");
    return first[1] === undefined ? undefined : Number(first[1]);
  }

  async queues(): Promise<string[]> {
    return (await this.#redis.smembers(NAMES)).sort();
  }

  async liveQueues(): Promise<string[]> {
    const names = await this.#redis.smembers(NAMES);
    if (names.length === 0) return [];
    // One round trip: a queue holds live messages while its `due` set exists.
    const pipeline = this.#redis.pipeline();
    for (const name of names) pipeline.exists(keys(name, "").due);
    const replies = (await pipeline.exec()) ?? [];
    return names.filter((_, i) => {
      const [error, exists] = replies[i] ?? [new Error("No reply")];
      if (error) throw error;
      return exists === 1;
    }).sort();
  }

  async forget(queue: string): Promise<boolean> {
    return await this.#run("queueForget", queue, queue) === 1;
  }

  async counts(queue: string, now: number): Promise<QueueCounts> {
    const [live, inFlight, dead] = await this.#run("queueCounts", queue, now);
    return { depth: live - inFlight, inFlight, deadLetters: dead };
  }

  async deadLetters(
    queue: string,
    limit: number,
    page: DeadLetterPage = {},
  ): Promise<DeadLetterList> {
    const { after } = page;
    const [total, ...flat] = await this.#run(
      "queueDeadLetters",
      queue,
      limit,
      page.newestFirst ? "1" : "0",
      ...(after === undefined ? ["0", 0, ""] : ["1", after.failedAt, after.id]),
    );
    const letters = rowsOf(flat).map(([id, failedAt, meta, data, attempts, error]) => {
      const m = toMeta(queue, id, meta, attempts, error);
      return {
        ...m,
        data: parseExact(data),
        lastError: m.lastError ?? { code: "UNKNOWN", message: "No error recorded" },
        failedAt: Number(failedAt),
      };
    });
    return { letters, total };
  }

  async redrive(
    queue: string,
    id: string | undefined,
    now: number,
    cut: DeadLetterCut = {},
  ): Promise<number> {
    const all = id === undefined ? "1" : "0";
    return await this.#run("queueRedrive", queue, now, all, id ?? "", cutOf(cut));
  }

  async discard(queue: string, id: string): Promise<boolean> {
    return await this.#run("queueDiscard", queue, id) === 1;
  }

  async discardAll(queue: string, cut: DeadLetterCut = {}): Promise<number> {
    return await this.#run("queueDiscardAll", queue, cutOf(cut));
  }

  /** Says goodbye to Redis, waiting briefly for its answer (see closeRedis), then drops the connection. */
  async close(): Promise<void> {
    await closeRedis(this.#redis);
  }
}

/**
 * A message as `queueClaim` and `queueDeadLetters` reply: id, lease (or the
 * time it failed), static meta, data, attempts, last error.
 */
type MessageRow = [string, string, string, string, string | null, string | null];

/** A script's flat reply, six values per message, as rows. */
function rowsOf(flat: (string | null)[]): MessageRow[] {
  const rows: MessageRow[] = [];
  for (let i = 0; i < flat.length; i += 6) rows.push(flat.slice(i, i + 6) as MessageRow);
  return rows;
}

/** The cut-off as the scripts take it: `''` for none. */
function cutOf(cut: DeadLetterCut): string | number {
  return cut.failedBefore ?? "";
}

function toMeta(
  queue: string,
  id: string,
  metaText: string,
  attempts: string | null,
  error: string | null,
): MessageMeta {
  const stored = JSON.parse(metaText) as StaticMeta;
  const meta: MessageMeta = {
    id,
    queue,
    functionId: stored.f,
    enqueuedAt: stored.t,
    attempts: attempts === null ? 0 : Number(attempts),
  };
  if (error !== null && error !== "") meta.lastError = JSON.parse(error);
  if (stored.tp !== undefined) meta.traceparent = stored.tp;
  if (stored.bg !== undefined) meta.baggage = stored.bg;
  return meta;
}

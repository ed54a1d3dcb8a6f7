/**
 * The Lua scripts of the Redis queue adapter: each is one atomic step on the
 * keys of one queue (see `redis.ts` for the layout). Payloads and metadata
 * pass through as opaque strings; no script decodes JSON.
 *
 * @module
 */

// KEYS meta, data, due, names; ARGV id, meta, data, now, queue → 1 stored, 0 id taken.
const ENQUEUE = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[5])
return 1`;

// KEYS due, leases, meta, data, attempts, errors; ARGV now, limit, lease until, lease prefix
// → flat [id, lease, meta, data, attempts|false, error|false, ...].
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i, id in ipairs(ids) do
  local meta = redis.call('HGET', KEYS[3], id)
  if meta then
    local lease = ARGV[4] .. '-' .. i
    redis.call('ZADD', KEYS[1], ARGV[3], id)
    redis.call('HSET', KEYS[2], id, lease)
    out[#out + 1] = id
    out[#out + 1] = lease
    out[#out + 1] = meta
    out[#out + 1] = redis.call('HGET', KEYS[4], id)
    out[#out + 1] = redis.call('HGET', KEYS[5], id)
    out[#out + 1] = redis.call('HGET', KEYS[6], id)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`;

// KEYS due, leases, meta, data, attempts, errors; ARGV id, lease → 1 removed, 0 lease lost.
const ACK = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
for i = 2, 6 do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1`;

// KEYS due, leases, attempts, errors; ARGV id, lease, visible at, attempts, error ('' for none).
const RESCHEDULE = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
if ARGV[5] == '' then redis.call('HDEL', KEYS[4], ARGV[1]) else redis.call('HSET', KEYS[4], ARGV[1], ARGV[5]) end
return 1`;

// KEYS due, leases, attempts, errors, dead; ARGV id, lease, failed at, attempts, error.
const BURY = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
return 1`;

// KEYS due, leases, dead; ARGV now → [live, in flight, dead].
const COUNTS = `
local now = tonumber(ARGV[1])
local inflight = 0
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) > now then inflight = inflight + 1 end
end
return {redis.call('ZCARD', KEYS[1]), inflight, redis.call('ZCARD', KEYS[3])}`;

// KEYS dead, meta, data, attempts, errors; ARGV limit
// → flat [id, failed at, meta, data, attempts|false, error|false, ...].
const DEAD_LETTERS = `
local rows = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  local id = rows[i]
  out[#out + 1] = id
  out[#out + 1] = rows[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], id)
  out[#out + 1] = redis.call('HGET', KEYS[3], id)
  out[#out + 1] = redis.call('HGET', KEYS[4], id)
  out[#out + 1] = redis.call('HGET', KEYS[5], id)
end
return out`;

// KEYS dead, due, attempts, errors; ARGV now, all ('1'/'0'), id → how many moved.
const REDRIVE = `
local ids
if ARGV[2] == '1' then ids = redis.call('ZRANGE', KEYS[1], 0, -1)
elseif redis.call('ZSCORE', KEYS[1], ARGV[3]) then ids = {ARGV[3]}
else return 0 end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], ARGV[1], id)
  redis.call('HSET', KEYS[3], id, 0)
  redis.call('HDEL', KEYS[4], id)
end
return #ids`;

// KEYS dead, meta, data, attempts, errors; ARGV id → 1 deleted, 0 none.
const DISCARD = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, 5 do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1`;

/** The scripts by command name, ready for `defineCommand`. */
export const SCRIPTS = {
  queueEnqueue: { numberOfKeys: 4, lua: ENQUEUE },
  queueClaim: { numberOfKeys: 6, lua: CLAIM },
  queueAck: { numberOfKeys: 6, lua: ACK },
  queueReschedule: { numberOfKeys: 4, lua: RESCHEDULE },
  queueBury: { numberOfKeys: 5, lua: BURY },
  queueCounts: { numberOfKeys: 3, lua: COUNTS },
  queueDeadLetters: { numberOfKeys: 5, lua: DEAD_LETTERS },
  queueRedrive: { numberOfKeys: 4, lua: REDRIVE },
  queueDiscard: { numberOfKeys: 5, lua: DISCARD },
};

type Arg = string | number;

/** The commands {@link SCRIPTS} adds to an ioredis client. */
export interface QueueScripts {
  queueEnqueue(...args: Arg[]): Promise<number>;
  queueClaim(...args: Arg[]): Promise<(string | null)[]>;
  queueAck(...args: Arg[]): Promise<number>;
  queueReschedule(...args: Arg[]): Promise<number>;
  queueBury(...args: Arg[]): Promise<number>;
  queueCounts(...args: Arg[]): Promise<[number, number, number]>;
  queueDeadLetters(...args: Arg[]): Promise<(string | null)[]>;
  queueRedrive(...args: Arg[]): Promise<number>;
  queueDiscard(...args: Arg[]): Promise<number>;
}

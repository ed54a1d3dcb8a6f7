/**
 * The Lua scripts of the Redis queue adapter: each is one atomic step on the
 * keys of one queue (see `redis.ts` for the layout) and names those keys in
 * the order its `KEYS[i]` reads them. Payloads and metadata pass through as
 * opaque strings; no script decodes JSON.
 *
 * Every script that writes is safe to send twice. When the connection breaks
 * after Redis ran a script but before its answer arrived, ioredis sends it
 * again on the new connection; run twice, an enqueue would say "id taken" (or
 * store again a message delivered meanwhile), a claim would find its messages
 * hidden by its own lease, an ack or a bury that the lease was lost, a redrive
 * or discard of one letter that it was not found. So each call names a mark,
 * `queue:\0mark:<uuid>` (its last key; its last `ARGV` is how long the mark
 * lives): the first run stores its answer there, a second run of the same call
 * finds it and answers the same without writing. The adapter removes the mark
 * once it has the answer; a mark it could not remove expires after a minute.
 * The mark is under `queue:`, so a Redis ACL written for the queue's keys
 * covers it, yet no queue's keys start so (queue names do not hold NUL).
 *
 * @module
 */

/** The prefix of a write's mark. */
export const MARK_PREFIX = "queue:\u0000mark:";

/**
 * How many due messages of skipped functions a claim passes over, at most,
 * looking for others: each costs Redis a read and a JSON decode.
 */
export const SKIP_WINDOW = 1000;

/** How long a mark nobody removed lives: longer than ioredis keeps sending a command again. */
export const MARK_TTL_MS = 60 * 1000;

/** The keys of one call, by name; `names` is the set of every queue's name, `mark` the call's mark. */
export type QueueKey =
  | "due"
  | "dead"
  | "leases"
  | "meta"
  | "data"
  | "attempts"
  | "errors"
  | "names"
  | "mark";

/** A script and the keys it takes, `KEYS[1]` first; a marked one takes the mark's TTL last. */
interface Script {
  keys: readonly QueueKey[];
  lua: string;
  marked?: boolean;
}

/**
 * `body` (Lua returning a number) made safe to send twice: its answer is kept
 * in the mark, the last key, for the mark TTL, the last `ARGV`.
 */
function marked(keys: readonly QueueKey[], body: string): Script {
  return {
    keys: [...keys, "mark"],
    marked: true,
    lua: `
local mark = KEYS[#KEYS]
local done = redis.call('GET', mark)
if done then return tonumber(done) end
local function run()
${body}
end
local answer = run()
redis.call('SET', mark, tostring(answer), 'PX', ARGV[#ARGV])
return answer`,
  };
}

// ARGV id, meta, data, now, queue → 1 stored, 0 id taken.
const ENQUEUE = marked(
  ["meta", "data", "due", "names"],
  `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[5])
return 1`,
);

// ARGV now, limit, lease until, lease prefix, skipped function ids (a JSON array), mark TTL
// → flat [id, lease, meta, data, attempts|false, error|false, ...].
// The mark keeps the ids and leases claimed (a JSON array, id then lease): a second run of the
// call answers the messages still held by those leases, rather than hiding them till they end.
// Messages of the skipped functions are passed over, among the first limit + SKIP_WINDOW due
// messages: a longer run of them ahead of the others is handed out (its first `limit`), to be
// put back behind, so the messages after it are reached without the script reading the whole
// backlog.
const CLAIM: Script = {
  keys: ["due", "leases", "meta", "data", "attempts", "errors", "mark"],
  marked: true,
  lua: `
local out = {}
local function add(id, lease, meta)
  out[#out + 1] = id
  out[#out + 1] = lease
  out[#out + 1] = meta
  out[#out + 1] = redis.call('HGET', KEYS[4], id)
  out[#out + 1] = redis.call('HGET', KEYS[5], id)
  out[#out + 1] = redis.call('HGET', KEYS[6], id)
end
local done = redis.call('GET', KEYS[7])
if done then
  local held = cjson.decode(done)
  for i = 1, #held, 2 do
    local meta = redis.call('HGET', KEYS[3], held[i])
    if meta and redis.call('HGET', KEYS[2], held[i]) == held[i + 1] then
      add(held[i], held[i + 1], meta)
    end
  end
  return out
end
local limit = tonumber(ARGV[2])
local skip = {}
for _, f in ipairs(cjson.decode(ARGV[5])) do skip[f] = true end
local window = limit
if next(skip) then window = limit + ${SKIP_WINDOW} end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, window)
local held = {}
local passed = {}
local function take(id, meta)
  local lease = ARGV[4] .. '-' .. (#held / 2 + 1)
  redis.call('ZADD', KEYS[1], ARGV[3], id)
  redis.call('HSET', KEYS[2], id, lease)
  held[#held + 1] = id
  held[#held + 1] = lease
  add(id, lease, meta)
end
for _, id in ipairs(ids) do
  if #held / 2 >= limit then break end
  local meta = redis.call('HGET', KEYS[3], id)
  if not meta then
    redis.call('ZREM', KEYS[1], id)
  elseif skip[cjson.decode(meta).f] then
    if #passed < limit then passed[#passed + 1] = {id, meta} end
  else
    take(id, meta)
  end
end
if #ids == window and #held == 0 then
  for _, p in ipairs(passed) do take(p[1], p[2]) end
end
if #held > 0 then redis.call('SET', KEYS[7], cjson.encode(held), 'PX', ARGV[#ARGV]) end
return out`,
};

// ARGV id, lease → 1 removed, 0 lease lost.
const ACK = marked(
  ["due", "leases", "meta", "data", "attempts", "errors"],
  `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
for i = 2, 6 do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1`,
);

// ARGV id, lease, visible at, attempts, error ('' for none) → 1 done, 0 lease lost.
const RESCHEDULE = marked(
  ["due", "leases", "attempts", "errors"],
  `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
if ARGV[5] == '' then redis.call('HDEL', KEYS[4], ARGV[1]) else redis.call('HSET', KEYS[4], ARGV[1], ARGV[5]) end
return 1`,
);

// ARGV id, lease, failed at, attempts, error → 1 done, 0 lease lost.
const BURY = marked(
  ["due", "leases", "attempts", "errors", "dead"],
  `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[1])
return 1`,
);

// ARGV now → [live, in flight, dead].
const COUNTS: Script = {
  keys: ["due", "leases", "dead"],
  lua: `
local now = tonumber(ARGV[1])
local inflight = 0
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) > now then inflight = inflight + 1 end
end
return {redis.call('ZCARD', KEYS[1]), inflight, redis.call('ZCARD', KEYS[3])}`,
};

// ARGV limit, newest first ('1'/'0'), after a cursor ('1'/'0'), its failure time, its id
// → [every dead letter's count, then flat id, failed at, meta, data, attempts|false, error|false, ...]:
// the count and the page of one moment.
// Ranks are in failure order (score, then id bytewise, as ZSET orders them). The cursor's
// place is found by a binary search among the ids of its score: it need not be there.
const DEAD_LETTERS: Script = {
  keys: ["dead", "meta", "data", "attempts", "errors"],
  lua: `
local function below(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
local limit = tonumber(ARGV[1])
local newest = ARGV[2] == '1'
local total = redis.call('ZCARD', KEYS[1])
local cut = 0
if newest then cut = total end
if ARGV[3] == '1' then
  -- cut: the rank of the first id past the cursor (newest first: the first not before it).
  local lo = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[4])
  local hi = lo + redis.call('ZCOUNT', KEYS[1], ARGV[4], ARGV[4])
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local id = redis.call('ZRANGE', KEYS[1], mid, mid)[1]
    if below(id, ARGV[5]) or (not newest and id == ARGV[5]) then lo = mid + 1 else hi = mid end
  end
  cut = lo
end
local first, last
if newest then first, last = math.max(cut - limit, 0), cut - 1
else first, last = cut, cut + limit - 1 end
local out = {total}
if last < first then return out end
local rows = redis.call('ZRANGE', KEYS[1], first, last, 'WITHSCORES')
local from, to, step = 1, #rows - 1, 2
if newest then from, to, step = #rows - 1, 1, -2 end
for i = from, to, step do
  local id = rows[i]
  out[#out + 1] = id
  out[#out + 1] = rows[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], id)
  out[#out + 1] = redis.call('HGET', KEYS[3], id)
  out[#out + 1] = redis.call('HGET', KEYS[4], id)
  out[#out + 1] = redis.call('HGET', KEYS[5], id)
end
return out`,
};

// ARGV now, all ('1'/'0'), id, failed before ('' for no cut-off) → how many moved.
const REDRIVE = marked(
  ["dead", "due", "attempts", "errors"],
  `
local ids
if ARGV[2] ~= '1' then
  if not redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 0 end
  ids = {ARGV[3]}
elseif ARGV[4] == '' then ids = redis.call('ZRANGE', KEYS[1], 0, -1)
else ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4]) end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], ARGV[1], id)
  redis.call('HSET', KEYS[3], id, 0)
  redis.call('HDEL', KEYS[4], id)
end
return #ids`,
);

// ARGV id → 1 deleted, 0 none.
const DISCARD = marked(
  ["dead", "meta", "data", "attempts", "errors"],
  `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, 5 do redis.call('HDEL', KEYS[i], ARGV[1]) end
return 1`,
);

// ARGV failed before ('' for no cut-off) → how many deleted.
const DISCARD_ALL = marked(
  ["dead", "meta", "data", "attempts", "errors"],
  `
local ids
if ARGV[1] == '' then ids = redis.call('ZRANGE', KEYS[1], 0, -1)
else ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1]) end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  for i = 2, 5 do redis.call('HDEL', KEYS[i], id) end
end
return #ids`,
);

// ARGV queue → 1 forgotten (its name out of the set of names), 0 it holds a message or a dead
// letter. Not marked: sent twice, the second answers 1 or 0 and changes nothing more.
const FORGET: Script = {
  keys: ["due", "dead", "names"],
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SREM', KEYS[3], ARGV[1])
return 1`,
};

/** The scripts by command name. */
export const SCRIPTS = {
  queueEnqueue: ENQUEUE,
  queueClaim: CLAIM,
  queueAck: ACK,
  queueReschedule: RESCHEDULE,
  queueBury: BURY,
  queueCounts: COUNTS,
  queueDeadLetters: DEAD_LETTERS,
  queueRedrive: REDRIVE,
  queueDiscard: DISCARD,
  queueDiscardAll: DISCARD_ALL,
  queueForget: FORGET,
} satisfies Record<keyof QueueScripts, Script>;

/** One argument of a script: a key or an `ARGV` value. */
export type Arg = string | number;

/** The commands {@link SCRIPTS} adds to an ioredis client: the keys, then the `ARGV` values. */
export interface QueueScripts {
  queueEnqueue(...args: Arg[]): Promise<number>;
  queueClaim(...args: Arg[]): Promise<(string | null)[]>;
  queueAck(...args: Arg[]): Promise<number>;
  queueReschedule(...args: Arg[]): Promise<number>;
  queueBury(...args: Arg[]): Promise<number>;
  queueCounts(...args: Arg[]): Promise<[number, number, number]>;
  queueDeadLetters(...args: Arg[]): Promise<[number, ...(string | null)[]]>;
  queueRedrive(...args: Arg[]): Promise<number>;
  queueDiscard(...args: Arg[]): Promise<number>;
  queueDiscardAll(...args: Arg[]): Promise<number>;
  queueForget(...args: Arg[]): Promise<number>;
}

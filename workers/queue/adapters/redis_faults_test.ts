/**
 * The Redis queue adapter when the network between it and a real
 * `redis-server` misbehaves (the state worker's proxy in between, see
 * `workers/state/adapters/_redis_proxy.ts`): an answer lost after Redis ran
 * the script, which ioredis then sends again on a new connection, and a Redis
 * that stops answering without closing the connection.
 */

import { settlesWithin } from "../../../tests/support/settles.ts";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { startEngine } from "../../../engine/engine.ts";
import { startRedisServer } from "../../../tests/support/redis_server.ts";
import { type RedisProxy, startRedisProxy } from "../../state/adapters/_redis_proxy.ts";
import type { Logger } from "../../../engine/api.ts";
import { QUEUE_DEFAULTS } from "../config.ts";
import { Dispatcher } from "../dispatcher.ts";
import { queueWorker } from "../mod.ts";
import { MARK_PREFIX } from "./redis_scripts.ts";
import { DEFAULT_COMMAND_TIMEOUT_MS, RedisStore, type RedisStoreOptions } from "./redis.ts";
import type { NewMessage } from "./store.ts";

/** A store connected to a new Redis through a proxy, and a store connected to it directly. */
async function withProxiedStore(
  options: Partial<RedisStoreOptions>,
  run: (store: RedisStore, proxy: RedisProxy, direct: RedisStore, admin: Redis) => Promise<void>,
): Promise<void> {
  const server = await startRedisServer();
  const proxy = startRedisProxy(server.port);
  const stores: RedisStore[] = [];
  const admin = new Redis(server.url);
  try {
    stores.push(await RedisStore.connect({ url: proxy.url, ...options }));
    stores.push(await RedisStore.connect({ url: server.url }));
    await run(stores[0]!, proxy, stores[1]!, admin);
  } finally {
    proxy.release();
    for (const store of stores) await store.close();
    admin.disconnect();
    await proxy.stop();
    await server.stop();
  }
}

function message(queue: string, id: string): NewMessage {
  return { id, queue, functionId: "jobs::run", dataText: `{"id":"${id}"}`, enqueuedAt: 1000 };
}

/** The next script call naming `text` (a queue's keys, or an id) loses its answer. */
function loseScriptReply(proxy: RedisProxy, text: string): Promise<void> {
  // ioredis sends a script as EVALSHA, and as EVAL again once the connection broke.
  return proxy.loseReplyTo((request) => /eval/i.test(request) && request.includes(text));
}

const failure = { code: "invocation_failed", message: "boom" };

Deno.test("RedisStore: every write answers as it did the first time when its answer is lost and ioredis sends it again", async () => {
  await withProxiedStore({}, async (store, proxy, direct, admin) => {
    // Loads the scripts, so each call below is one script call.
    await store.enqueue(message("warm", "w"));
    const [w] = await store.claim("warm", 2000, 1, 9000);
    await store.ack("warm", "w", w!.lease);

    let lost = loseScriptReply(proxy, "enq-1");
    assert.equal(await store.enqueue(message("q", "enq-1")), true, "stored, not 'id taken'");
    await lost;
    assert.equal(await store.enqueue(message("q", "enq-1")), false, "a second enqueue is refused");

    lost = loseScriptReply(proxy, "queue:q:due");
    const claimed = await store.claim("q", 2000, 5, 9000);
    await lost;
    // Not [] with the message hidden until its lease ends.
    assert.deepEqual(claimed.map((m) => m.id), ["enq-1"]);
    assert.deepEqual(await direct.counts("q", 2000), { depth: 0, inFlight: 1, deadLetters: 0 });

    lost = loseScriptReply(proxy, "enq-1");
    assert.equal(
      await store.reschedule("q", "enq-1", claimed[0]!.lease, {
        attempts: 1,
        visibleAt: 2000,
        lastError: failure,
      }),
      true,
      "rescheduled, not 'lease lost'",
    );
    await lost;

    let [again] = await store.claim("q", 2000, 1, 9000);
    lost = loseScriptReply(proxy, "enq-1");
    assert.equal(
      await store.bury("q", "enq-1", again!.lease, {
        attempts: 2,
        lastError: failure,
        failedAt: 3000,
      }),
      true,
      "buried, not 'lease lost'",
    );
    await lost;

    lost = loseScriptReply(proxy, "enq-1");
    assert.equal(await store.redrive("q", "enq-1", 4000), 1, "redriven, not 'not found'");
    await lost;

    [again] = await store.claim("q", 4000, 1, 9000);
    lost = loseScriptReply(proxy, "enq-1");
    assert.equal(
      await store.ack("q", "enq-1", again!.lease),
      true,
      "acknowledged, not 'lease lost'",
    );
    await lost;
    assert.deepEqual(await direct.counts("q", 4000), { depth: 0, inFlight: 0, deadLetters: 0 });

    // Two dead letters, to discard one by id and one with all, and redrive all.
    for (const id of ["d-1", "d-2", "d-3"]) {
      await store.enqueue(message("dead", id));
      const [m] = await store.claim("dead", 5000, 1, 9000);
      await store.bury("dead", m!.id, m!.lease, {
        attempts: 1,
        lastError: failure,
        failedAt: 6000,
      });
    }
    lost = loseScriptReply(proxy, "d-1");
    assert.equal(await store.discard("dead", "d-1"), true, "discarded, not 'not found'");
    await lost;
    lost = loseScriptReply(proxy, "queue:dead:dead");
    assert.equal(await store.discardAll("dead", { failedBefore: 6001 }), 2);
    await lost;

    for (const id of ["r-1", "r-2"]) {
      await store.enqueue(message("again", id));
      const [m] = await store.claim("again", 5000, 1, 9000);
      await store.bury("again", m!.id, m!.lease, {
        attempts: 1,
        lastError: failure,
        failedAt: 6000,
      });
    }
    lost = loseScriptReply(proxy, "queue:again:dead");
    assert.equal(await store.redrive("again", undefined, 7000), 2);
    await lost;
    assert.deepEqual(await direct.counts("again", 7000), { depth: 2, inFlight: 0, deadLetters: 0 });

    // Each call removed its mark once answered (before the next command on its connection).
    await store.queues();
    assert.deepEqual(await admin.keys(`${MARK_PREFIX}*`), []);
  });
});

Deno.test("RedisStore works for a Redis user whose ACL allows only the keys under queue:", async () => {
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  let store: RedisStore | undefined;
  try {
    await admin.call("ACL", "SETUSER", "queue-only", "on", ">secret", "~queue:*", "+@all");
    store = await RedisStore.connect({ url: `redis://queue-only:secret@127.0.0.1:${server.port}` });
    // Each write names its mark among its keys: one outside queue: is refused by the ACL.
    assert.equal(await store.enqueue(message("q", "m-1")), true);
    const [claimed] = await store.claim("q", 2000, 1, 9000);
    assert.equal(
      await store.bury("q", "m-1", claimed!.lease, {
        attempts: 1,
        lastError: failure,
        failedAt: 3000,
      }),
      true,
    );
    assert.equal(await store.redrive("q", "m-1", 4000), 1);
    const [again] = await store.claim("q", 4000, 1, 9000);
    assert.equal(await store.ack("q", "m-1", again!.lease), true);
    assert.deepEqual(await store.queues(), ["q"]);
  } finally {
    await store?.close();
    admin.disconnect();
    await server.stop();
  }
});

Deno.test("Dispatcher over a Redis that stops answering logs its failed claims and delivers again once Redis answers", async () => {
  await withProxiedStore({ commandTimeoutMs: 300 }, async (store, proxy, direct) => {
    const delivered: unknown[] = [];
    let onDelivered = () => {};
    const claimFailed = Promise.withResolvers<string>();
    const log: Logger = {
      debug() {},
      info() {},
      warn() {},
      error: (message) => {
        if (/^Cannot claim/.test(message)) claimFailed.resolve(message);
      },
      child: () => log,
    };
    const dispatcher = new Dispatcher({
      store,
      // A short lease: the claim Redis ran while its answer was held hides its message till then.
      settingsOf: () => ({ ...QUEUE_DEFAULTS, visibility_timeout_ms: 200 }),
      target: {
        call: (_id, data) => {
          delivered.push(data);
          onDelivered();
          return Promise.resolve();
        },
        hasFunction: () => true,
      },
      log,
      pollMs: 50,
    });
    const deliveryOf = (id: string) =>
      new Promise<void>((resolve) => {
        const check = () => delivered.some((d) => (d as { id: string }).id === id) && resolve();
        onDelivered = check;
        check();
      });
    try {
      dispatcher.start(["q"]);
      await direct.enqueue(message("q", "before"));
      await deliveryOf("before");

      proxy.hold();
      await direct.enqueue(message("q", "during"));
      dispatcher.notify("q");
      assert.match(
        await claimFailed.promise,
        /^Cannot claim messages of queue "q": Redis at redis:\/\/127\.0\.0\.1:\d+\/? did not answer within 300 ms/,
      );
      proxy.release();
      await deliveryOf("during");
    } finally {
      // Lets the delivery record its ack.
      await dispatcher.stop();
    }
    // Delivered and acknowledged: nothing left, nothing lost.
    assert.deepEqual(await direct.counts("q", Date.now() + 60_000), {
      depth: 0,
      inFlight: 0,
      deadLetters: 0,
    });
  });
});

Deno.test("engine-queue on a Redis that stops answering: enqueue fails naming Redis, start fails, engine stop ends", async () => {
  const server = await startRedisServer();
  const proxy = startRedisProxy(server.port);
  const engine = await startEngine({
    port: 0,
    builtins: [{ worker: queueWorker, config: { adapter: "redis", url: proxy.url } }],
  });
  let stopped = false;
  try {
    const api = engine.builtinApi("engine-queue");
    const enqueue = (n: number) =>
      api.call("engine::queue::enqueue", { queue: "q", function_id: "jobs::run", data: n }, {
        timeoutMs: 120_000,
      });
    await enqueue(1);
    proxy.hold();
    const limit = DEFAULT_COMMAND_TIMEOUT_MS * 3;
    const noAnswer = new RegExp(
      `Redis at redis://127\\.0\\.0\\.1:\\d+/? did not answer within ${DEFAULT_COMMAND_TIMEOUT_MS} ms`,
    );
    await Promise.all([
      // Not waiting for ever: QUEUE_STORE_ERROR naming the queue and the Redis.
      assert.rejects(settlesWithin(enqueue(2), limit, "enqueue"), (error: Error) => {
        assert.match(error.message, /^Cannot store a message in queue "q": /);
        assert.match(error.message, noAnswer);
        return true;
      }),
      // A worker starting on it fails instead of holding up the engine's start.
      assert.rejects(
        settlesWithin(RedisStore.connect({ url: proxy.url }), limit, "connect"),
        /Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/?: .*did not answer within/,
      ),
      // The dispatcher's claim in flight fails too, and the store closes without Redis's goodbye.
      settlesWithin(engine.stop(), limit, "engine stop").then(() => stopped = true),
    ]);
  } finally {
    proxy.release();
    if (!stopped) await engine.stop();
    await proxy.stop();
    await server.stop();
  }
});

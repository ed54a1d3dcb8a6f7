/**
 * The Redis state adapter when the network between it and a real
 * `redis-server` misbehaves (a proxy in between, see `_redis_proxy.ts`): an
 * answer lost after Redis ran the command, and a Redis that stops answering
 * without closing the connection.
 */

import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { startRedisServer } from "../../../tests/support/redis_server.ts";
import { parseOps, type UpdateOp } from "../update_ops.ts";
import { startRedisProxy } from "./_redis_proxy.ts";
import { MARK_PREFIX } from "./redis_scripts.ts";
import { RedisStore, type RedisStoreOptions } from "./redis.ts";

function ops(raw: unknown[]): UpdateOp[] {
  const parsed = parseOps(raw);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.ops;
}

/** A store connected to a new Redis through a proxy, and a store connected to it directly. */
async function withProxiedStore(
  options: Partial<RedisStoreOptions>,
  run: (
    proxied: RedisStore,
    proxy: ReturnType<typeof startRedisProxy>,
    direct: RedisStore,
    admin: Redis,
  ) => Promise<void>,
): Promise<void> {
  const server = await startRedisServer();
  const proxy = startRedisProxy(server.port);
  const stores: RedisStore[] = [];
  const admin = new Redis(server.url);
  try {
    const proxied = await RedisStore.connect({
      url: proxy.url,
      maxValueBytes: 1 << 20,
      ...options,
    });
    stores.push(proxied);
    const direct = await RedisStore.connect({ url: server.url, maxValueBytes: 1 << 20 });
    stores.push(direct);
    await run(proxied, proxy, direct, admin);
  } finally {
    proxy.release();
    for (const store of stores) await store.close();
    admin.disconnect();
    await proxy.stop();
    await server.stop();
  }
}

Deno.test("RedisStore.update() applies its ops once when the answer to its write is lost", async () => {
  await withProxiedStore({}, async (store, proxy, direct, admin) => {
    const increment = ops([{ type: "increment", path: "n", by: 1 }]);
    // Loads the scripts, so the write below is the one script call of the update.
    await store.update("counters", "warm-up", increment);
    await store.set("counters", "lost-reply", { n: 0 });
    const lost = proxy.loseReplyTo((request) =>
      /evalsha/i.test(request) && request.includes("lost-reply")
    );
    const outcome = await store.update("counters", "lost-reply", increment);
    await lost;
    assert.deepEqual(outcome.oldValue, { n: 0 });
    assert.deepEqual(outcome.newValue, { n: 1 });
    // The client sent the write again on the new connection: it must not land twice.
    assert.deepEqual(await direct.get("counters", "lost-reply"), { n: 1 });
    // Each update removed its mark once answered (before the next command on its connection).
    await store.get("counters", "lost-reply");
    assert.deepEqual(await admin.keys(`${MARK_PREFIX}*`), []);
  });
});

Deno.test("RedisStore.set() and delete() answer what they replaced when their answer is lost", async () => {
  await withProxiedStore({}, async (store, proxy, direct, admin) => {
    // Once the connection broke, ioredis sends scripts as EVAL again: match both forms.
    const scriptFor = (key: string) => (request: string) =>
      /eval/i.test(request) && request.includes(key);
    await store.set("s", "warm-up", 1);
    await store.delete("s", "warm-up");

    let lost = proxy.loseReplyTo(scriptFor("fresh"));
    assert.deepEqual(await store.set("s", "fresh", 1), { created: true, oldValue: null });
    await lost;

    await store.set("s", "replaced", "before");
    lost = proxy.loseReplyTo(scriptFor("replaced"));
    assert.deepEqual(await store.set("s", "replaced", "after"), {
      created: false,
      oldValue: "before",
    });
    await lost;

    await store.set("s", "gone", { n: 1 });
    lost = proxy.loseReplyTo(scriptFor("gone"));
    // Not "nothing was there": the caller gets the removed value and the event fires.
    assert.deepEqual(await store.delete("s", "gone"), { existed: true, oldValue: { n: 1 } });
    await lost;

    lost = proxy.loseReplyTo(scriptFor("never-there"));
    assert.deepEqual(await store.delete("s", "never-there"), { existed: false, oldValue: null });
    await lost;

    assert.deepEqual(await direct.list("s"), [
      { key: "fresh", value: 1 },
      { key: "replaced", value: "after" },
    ]);
    await store.get("s", "fresh");
    assert.deepEqual(await admin.keys(`${MARK_PREFIX}*`), []);
  });
});

Deno.test("RedisStore: a Redis that stops answering fails calls after commandTimeoutMs, naming Redis and the time", async () => {
  await withProxiedStore({ commandTimeoutMs: 300 }, async (store, proxy, direct) => {
    await store.set("s", "k", 1);
    proxy.hold();
    const hung = /Redis at redis:\/\/127\.0\.0\.1:\d+\/? did not answer within 300 ms/;
    await assert.rejects(() => Promise.resolve(store.get("s", "k")), hung);
    await assert.rejects(
      () => Promise.resolve(store.update("s", "k", ops([{ type: "increment", path: "", by: 1 }]))),
      hung,
    );
    // A write sent before the time-out may still land: the message says so.
    await assert.rejects(
      () => Promise.resolve(store.set("s", "k", 2)),
      /did not answer within 300 ms: what it was sent may still take effect when it answers/,
    );
    proxy.release();
    // The connection is usable again, without reconnecting by hand.
    assert.equal(await store.get("s", "k"), 2);
    assert.deepEqual(
      (await store.update("s", "k", ops([{ type: "increment", path: "", by: 1 }]))).newValue,
      3,
    );
    assert.equal(await direct.get("s", "k"), 3);
  });
});

Deno.test("RedisStore.connect() to a Redis that accepts but never answers fails instead of hanging", async () => {
  await withProxiedStore({}, async (_store, proxy) => {
    proxy.hold();
    await assert.rejects(
      RedisStore.connect({ url: proxy.url, maxValueBytes: 1024, commandTimeoutMs: 300 }),
      /Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/?: .*did not answer within 300 ms/,
    );
  });
});

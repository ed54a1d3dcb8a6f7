/**
 * engine-queue under a live config change: the engine (`main.ts` as a child
 * process) restarts the queue worker when its config block changes. While
 * the old worker lets a delivery in flight finish, enqueues are still stored
 * and the new worker delivers them; a queue removed from the config keeps
 * delivering what it holds.
 */

import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const config = (queues: string, extra = "") =>
  `port: 0
console: { enabled: false }
workers:
  - name: engine-queue
    config:
      path: ./queue.db
${extra}      default_queue: { backoff_ms: 20, visibility_timeout_ms: 20000 }
      queues:
${queues}
`;
const invoked = (functionId: string, data: unknown) => (f: Frame) =>
  f.type === "invokefunction" && f.function_id === functionId &&
  JSON.stringify(f.data) === JSON.stringify(data);

Deno.test("enqueues made while a config reload waits for a delivery in flight are stored and delivered", async () => {
  const { dir, file } = await tempConfig(config("        jobs: { concurrency: 1 }"));
  const engine = await spawnEngine({ config: file });
  const workers: RawWorker[] = [];
  try {
    const consumer = await RawWorker.connect(engine.url);
    workers.push(consumer);
    consumer.send({ type: "registerfunction", id: "reload::hold" });
    const producer = await RawWorker.connect(engine.url);
    workers.push(producer);
    await waitForFunctions(producer, ["reload::hold"]);

    const first = consumer.next(invoked("reload::hold", { n: 1 }));
    assert.equal((await producer.enqueue("jobs", "reload::hold", { n: 1 })).error, undefined);
    const held = await first;

    // A live change of the queue's settings restarts the worker, which waits for the held delivery.
    await Deno.writeTextFile(file, config("        jobs: { concurrency: 4 }"));
    await engine.waitForLine(/Queue worker stopping: waiting up to \d+ ms for 1 delivery/);
    const during = await producer.enqueue("jobs", "reload::hold", { n: 2 });
    assert.equal(during.error, undefined, JSON.stringify(during.error));
    assert.equal(typeof during.result.messageReceiptId, "string");

    const second = consumer.next(invoked("reload::hold", { n: 2 }), { timeoutMs: 10_000 });
    consumer.send({
      type: "invocationresult",
      invocation_id: held.invocation_id,
      function_id: "reload::hold",
      result: null,
    });
    await engine.waitForLine(/Config reloaded: restarted "engine-queue"/);
    const delivered = await second;
    consumer.send({
      type: "invocationresult",
      invocation_id: delivered.invocation_id,
      function_id: "reload::hold",
      result: null,
    });
    // The held message was answered within the grace period: acknowledged, not delivered again.
    const jobs = await waitForDepth(producer, "jobs", 0);
    assert.equal(jobs.settings.concurrency, 4);
    const deliveries = consumer.frames.filter((f) => f.type === "invokefunction");
    assert.deepEqual(deliveries.map((f) => f.data), [{ n: 1 }, { n: 2 }]);
  } finally {
    for (const w of workers) await w.close();
    assert.equal(await engine.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a queue removed from the config delivers its pending messages with default_queue settings", async () => {
  const { dir, file } = await tempConfig(config("        old: { max_attempts: 9 }\n        kept:"));
  const engine = await spawnEngine({ config: file });
  const workers: RawWorker[] = [];
  try {
    const producer = await RawWorker.connect(engine.url);
    workers.push(producer);
    // Nothing provides the function yet: the messages wait in the queue.
    for (const n of [1, 2, 3]) {
      assert.equal((await producer.enqueue("old", "reload::late", { n })).error, undefined);
    }
    await Deno.writeTextFile(file, config("        kept:", "      auto_create_queues: false\n"));
    await engine.waitForLine(/Config reloaded: restarted "engine-queue"/);

    const consumer = await RawWorker.connect(engine.url);
    workers.push(consumer);
    const seen: unknown[] = [];
    const all = Promise.withResolvers<void>();
    consumer.serve("reload::late", (data) => {
      seen.push(data);
      if (seen.length === 3) all.resolve();
      return null;
    });
    await all.promise;
    assert.deepEqual(seen, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const old = await waitForDepth(producer, "old", 0);
    assert.equal(old.configured, false);
    assert.equal(old.settings.max_attempts, 5);
    // Not configured and not auto-created: new messages to it are refused.
    const refused = await producer.enqueue("old", "reload::late", { n: 4 });
    assert.equal(refused.error?.code, "enqueue_error");
    assert.match(refused.error?.message, /Queue "old" is not configured/);
  } finally {
    for (const w of workers) await w.close();
    assert.equal(await engine.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

/** `engine::queue::list`'s entry of `queue` once its depth and in-flight count reach `depth` and 0. */
async function waitForDepth(w: RawWorker, queue: string, depth: number): Promise<Frame> {
  let entry: Frame | undefined;
  for (let i = 0; i < 200; i++) {
    const list = await w.call("engine::queue::list", {});
    entry = list.result.queues.find((q: Frame) => q.name === queue);
    if (entry?.depth === depth && entry.in_flight === 0) return entry;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Queue "${queue}" never reached depth ${depth}: ${JSON.stringify(entry)}`);
}

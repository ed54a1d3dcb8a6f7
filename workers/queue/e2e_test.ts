/**
 * End to end: the queue worker in a real engine with worker processes on our
 * TypeScript SDK (`tests/fixtures/queue/sdk_worker.ts`): enqueue and
 * delivery across workers, retries into dead letters and redrive, the
 * concurrency limit, bad input, an invalid config, and `kill -9` of the
 * engine (`main.ts` as a child process) with messages waiting.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startEngine } from "../../engine/engine.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { TriggerAction } from "../../sdk/typescript/mod.ts";
import { runCli, spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";
import { type Message, SdkProcess } from "./_sdk_process.ts";
import { deadLetterLogs } from "./_testing.ts";
import { queueWorker } from "./mod.ts";

type Running = Awaited<ReturnType<typeof startEngine>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An engine in this process with the queue worker on SQLite, a consumer and a producer process. */
async function withSystem(
  body: (s: { engine: Running; producer: SdkProcess; consumer: SdkProcess }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "queue-e2e-" });
  const config = queueWorker.parseConfig({
    path: join(dir, "queue.db"),
    auto_create_queues: false,
    max_payload_bytes: 4096,
    default_queue: { backoff_ms: 20, max_backoff_ms: 50, visibility_timeout_ms: 5000 },
    queues: { jobs: null, fragile: { max_attempts: 3 }, narrow: { concurrency: 2 } },
  });
  const engine = await startEngine({ port: 0, builtins: [{ worker: queueWorker, config }] });
  const started: SdkProcess[] = [];
  try {
    const consumer = await SdkProcess.start(engine.url, true);
    started.push(consumer);
    const producer = await SdkProcess.start(engine.url);
    started.push(producer);
    await body({ engine, producer, consumer });
  } finally {
    for (const p of started) await p.stop();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a worker enqueues with TriggerAction.Enqueue and gets its receipt before the delivery ends", async () => {
  await withSystem(async ({ producer, consumer }) => {
    const answer = await producer.enqueue("jobs", "queue-e2e::gate", { order: 1 });
    assert.equal(answer.error, undefined);
    const receipt = (answer.result as Message).messageReceiptId as string;
    assert.match(receipt, UUID);
    // The receipt came back although the handler cannot have finished: its gate is still shut.
    assert.deepEqual(await consumer.report("gated"), { order: 1 });
    await consumer.send({ op: "open_gate" });

    const second = await producer.enqueue("jobs", "queue-e2e::record", { order: 2 });
    assert.match((second.result as Message).messageReceiptId as string, UUID);
    assert.deepEqual(await consumer.report("delivered"), { order: 2 });

    // Fire and forget goes straight to the function.
    const fired = await producer.send({
      op: "void",
      function_id: "queue-e2e::record",
      payload: { order: 3 },
    });
    assert.equal(fired.result, "(undefined)");
    assert.deepEqual(await consumer.report("delivered"), { order: 3 });
  });
});

Deno.test("a failing function is tried max_attempts times, dead-lettered with its last error, and redriven", async () => {
  await withSystem(async ({ engine, producer, consumer }) => {
    const buried = deadLetterLogs(engine, 1);
    const answer = await producer.enqueue("fragile", "queue-e2e::fail", { n: 7 });
    const receipt = (answer.result as Message).messageReceiptId;
    for (const attempt of [1, 2, 3]) {
      const { data, attempt: nth } = await consumer.report("failed");
      assert.deepEqual({ data, attempt: nth }, { data: { n: 7 }, attempt });
    }
    await buried;
    const dead = await producer.call("engine::queue::dead_letters", { queue: "fragile" });
    assert.equal(dead.total, 1);
    const [letter] = dead.dead_letters as Message[];
    assert.equal(letter?.id, receipt);
    assert.equal(letter?.attempts, 3);
    assert.deepEqual(letter?.data, { n: 7 });
    assert.deepEqual(
      {
        code: (letter?.last_error as Message).code,
        message: (letter?.last_error as Message).message,
      },
      { code: "invocation_failed", message: "attempt 3 of message 7 failed" },
    );
    const list = await producer.call("engine::queue::list", {});
    const fragile = (list.queues as Message[]).find((q) => q.name === "fragile");
    assert.deepEqual(
      { depth: fragile?.depth, in_flight: fragile?.in_flight, dead_letters: fragile?.dead_letters },
      { depth: 0, in_flight: 0, dead_letters: 1 },
    );

    await consumer.send({ op: "heal" });
    assert.deepEqual(await producer.call("engine::queue::redrive", { queue: "fragile" }), {
      queue: "fragile",
      redriven: 1,
    });
    assert.deepEqual(await consumer.report("delivered"), { n: 7 });
    const after = await producer.call("engine::queue::dead_letters", { queue: "fragile" });
    assert.deepEqual(after.dead_letters, []);
  });
});

Deno.test("a queue never has more than its concurrency in flight", async () => {
  await withSystem(async ({ producer, consumer }) => {
    const count = 6;
    for (let i = 0; i < count; i++) {
      const answer = await producer.enqueue("narrow", "queue-e2e::slow", { i, ms: 150 });
      assert.equal(answer.error, undefined);
    }
    let max = 0;
    const seen = new Set<number>();
    while (seen.size < count) {
      const report = await consumer.report("slow");
      seen.add((report.data as { i: number }).i);
      max = Math.max(max, report.max as number);
    }
    // Six 150 ms calls queued at once: the limit of 2 is reached, never passed.
    assert.equal(max, 2);
  });
});

Deno.test("enqueue refuses an unknown queue and a payload over the limit with enqueue_error", async () => {
  await withSystem(async ({ producer }) => {
    const unknown = await producer.enqueue("nope", "queue-e2e::record", {});
    assert.deepEqual(unknown.error, {
      code: "enqueue_error",
      message:
        `Queue "nope" is not configured: add it under "queues" in the engine-queue config, or set "auto_create_queues: true"`,
    });
    const big = await producer.enqueue("jobs", "queue-e2e::record", { text: "x".repeat(5000) });
    assert.deepEqual(big.error, {
      code: "enqueue_error",
      message:
        `Cannot enqueue to queue "jobs": the payload is 5011 bytes, over the limit of 4096 (max_payload_bytes)`,
    });
  });
});

Deno.test("the engine refuses to start with an invalid engine-queue config, naming the field", async () => {
  const { dir, file } = await tempConfig(
    [
      "port: 0",
      "console:",
      "  enabled: false",
      "workers:",
      "  - name: engine-queue",
      "    config:",
      "      adapter: memory",
      "      queues:",
      "        jobs:",
      "          concurrency: 0",
      "",
    ].join("\n"),
  );
  try {
    const { code, stderr } = await runCli(["--config", file]);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /engine-config\.yaml:10:\d+: workers\[0\]\.config\.queues\.jobs\.concurrency: /,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("messages accepted before kill -9 of the engine are delivered after its restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "queue-kill-" });
  const config = [
    "host: 127.0.0.1",
    "port: 0",
    "console:",
    "  enabled: false",
    "workers:",
    "  - name: engine-queue",
    "    config:",
    `      path: ${join(dir, "queue.db")}`,
    "      queues:",
    "        durable: { backoff_ms: 50, visibility_timeout_ms: 2000 }",
    "",
  ].join("\n");
  const file = join(dir, "engine-config.yaml");
  await Deno.writeTextFile(file, config);
  const first = await spawnEngine({ config: file });
  await first.waitForLine(/Started worker engine-queue/);
  const producer = registerWorker(first.url, { worker_name: "producer" });
  const accepted = new Map<number, string>();
  let killed: Promise<number> | undefined;
  try {
    await producer.ready();
    // Eight lanes keep enqueues in flight until 200 are accepted; the target is not connected.
    let n = 0;
    const lane = async () => {
      while (killed === undefined) {
        const mine = n++;
        let receipt: { messageReceiptId: string };
        try {
          receipt = await producer.trigger({
            function_id: "queue-e2e::record",
            payload: { n: mine },
            action: TriggerAction.Enqueue({ queue: "durable" }),
          }) as { messageReceiptId: string };
        } catch {
          return; // The engine is gone.
        }
        accepted.set(mine, receipt.messageReceiptId);
        if (accepted.size >= 200 && killed === undefined) killed = first.stop("SIGKILL");
      }
    };
    const lanes = Array.from({ length: 8 }, lane);
    await Promise.race(lanes);
    await killed;
    assert.equal((await first.child.status).signal, "SIGKILL");
    await producer.shutdown();
    await Promise.all(lanes);
  } finally {
    await producer.shutdown();
    await (killed ?? first.stop("SIGKILL"));
  }

  const second = await spawnEngine({ config: file });
  let consumer: SdkProcess | undefined;
  try {
    await second.waitForLine(/Started worker engine-queue/);
    consumer = await SdkProcess.start(second.url, true);
    const delivered = new Set<number>();
    while ([...accepted.keys()].some((n) => !delivered.has(n))) {
      const report = await consumer.report("delivered");
      delivered.add((report as { n: number }).n);
    }
    assert.ok(accepted.size >= 200);
  } finally {
    await consumer?.stop();
    await second.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

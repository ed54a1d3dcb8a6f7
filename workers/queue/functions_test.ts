/**
 * The `engine::queue::*` functions through a real engine in this process
 * (memory adapter) and raw protocol workers: the enqueue action of the
 * engine, bad input, and the shapes of the management functions.
 */

import assert from "node:assert/strict";
import { CallError, type InvocationContext } from "../../engine/api.ts";
import { startEngine } from "../../engine/engine.ts";
import { type Frame, RawWorker } from "../../tests/support/raw_worker.ts";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { startRedisServer } from "../../tests/support/redis_server.ts";
import { eventually } from "../../tests/support/local_worker.ts";
import { deadLetterLogs } from "./_testing.ts";
import { MemoryStore } from "./adapters/memory.ts";
import { ManualClock } from "./clock.ts";
import { parseConfig } from "./config.ts";
import { Counters } from "./counters.ts";
import { Dispatcher } from "./dispatcher.ts";
import { createQueueFunctions } from "./functions.ts";
import { queueWorker } from "./mod.ts";

type Running = Awaited<ReturnType<typeof startEngine>>;

async function withEngine(
  config: Record<string, unknown> | undefined,
  body: (engine: Running, worker: RawWorker) => Promise<void>,
): Promise<void> {
  const engine = await startEngine({
    port: 0,
    ...(config === undefined ? {} : { builtins: [{ worker: queueWorker, config }] }),
  });
  const worker = await RawWorker.connect(engine.url);
  try {
    await body(engine, worker);
  } finally {
    await worker.close();
    await engine.stop();
  }
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FAST = { backoff_ms: 10, max_backoff_ms: 10, visibility_timeout_ms: 2000 };

Deno.test("enqueue answers with a receipt and the message reaches its function", async () => {
  await withEngine({ adapter: "memory", default_queue: FAST }, async (engine, worker) => {
    const delivered = Promise.withResolvers<Frame>();
    worker.serve("jobs::run", (_data, frame) => {
      delivered.resolve(frame);
      return { done: true };
    });
    const answer = await worker.enqueue("jobs", "jobs::run", { n: 1 });
    assert.equal(answer.error, undefined);
    assert.match(answer.result.messageReceiptId, UUID);
    const frame = await delivered.promise;
    assert.deepEqual(frame.data, { n: 1 });
    assert.match(frame.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    assert.equal(engine.describeBuiltin("engine-queue")?.adapter, "memory");
  });
});

Deno.test("enqueue without the queue worker fails with enqueue_error saying how to add it", async () => {
  await withEngine(undefined, async (_engine, worker) => {
    const answer = await worker.enqueue("jobs", "jobs::run", {});
    assert.equal(answer.error.code, "enqueue_error");
    assert.match(answer.error.message, /engine worker add engine-queue/);
  });
});

Deno.test("enqueue refuses bad input with enqueue_error and a clear message", async () => {
  const config = {
    adapter: "memory",
    auto_create_queues: false,
    max_payload_bytes: 100,
    queues: { jobs: null },
  };
  await withEngine(config, async (_engine, worker) => {
    const cases: [queue: string, functionId: string, data: unknown, message: string][] = [
      [
        "nope",
        "jobs::run",
        {},
        `Queue "nope" is not configured: add it under "queues" in the engine-queue config, or set "auto_create_queues: true"`,
      ],
      [
        "jobs",
        "jobs::run",
        { text: "x".repeat(100) },
        `Cannot enqueue to queue "jobs": the payload is 111 bytes, over the limit of 100 (max_payload_bytes)`,
      ],
      [
        "bad queue",
        "jobs::run",
        {},
        `Invalid input for engine::queue::enqueue: "queue": Invalid queue name "bad queue": a queue name is 1 to 128 letters, digits, '.', '_', '-' and ':', starting with a letter or digit`,
      ],
    ];
    for (const [queue, functionId, data, message] of cases) {
      const answer = await worker.enqueue(queue, functionId, data);
      assert.deepEqual(answer.error, { code: "enqueue_error", message }, queue);
    }
    const direct = await worker.call("engine::queue::enqueue", {
      queue: "jobs",
      function_id: "not an id",
      data: 1,
    });
    assert.equal(direct.error.code, "INVALID_ARGUMENT");
    assert.match(
      direct.error.message,
      /^Invalid input for engine::queue::enqueue: "function_id": Invalid function id "not an id"/,
    );
  });
});

Deno.test("enqueue creates an unknown queue on first use when auto_create_queues is on", async () => {
  await withEngine({ adapter: "memory", default_queue: { concurrency: 3 } }, async (_e, worker) => {
    const answer = await worker.enqueue("fresh", "nobody::home", { a: 1 });
    assert.match(answer.result.messageReceiptId, UUID);
    const list = await worker.call("engine::queue::list", {});
    const fresh = list.result.queues.find((q: Frame) => q.name === "fresh");
    assert.equal(fresh.configured, false);
    assert.equal(fresh.settings.concurrency, 3);
    assert.equal(fresh.depth + fresh.in_flight, 1);
  });
});

Deno.test("engine::queue::enqueue called directly keeps a given receipt id and stores it once", async () => {
  await withEngine({ adapter: "memory" }, async (_e, worker) => {
    const payload = {
      queue: "jobs",
      function_id: "nobody::home",
      data: 1,
      messageReceiptId: "r-1",
    };
    for (let i = 0; i < 2; i++) {
      const answer = await worker.call("engine::queue::enqueue", payload);
      assert.deepEqual(answer.result, { messageReceiptId: "r-1" });
    }
    const stats = await worker.call("engine::queue::stats", { queue: "jobs" });
    assert.equal(stats.result.queues.jobs.enqueued, 2);
    // A payload without data is stored as null, not refused as "expected a nonoptional".
    const bare = await worker.call("engine::queue::enqueue", {
      queue: "bare",
      function_id: "a::b",
    });
    assert.equal(bare.error, undefined, JSON.stringify(bare.error));
    assert.match(bare.result.messageReceiptId, UUID);
    const list = await worker.call("engine::queue::list", {});
    const jobs = list.result.queues.find((q: Frame) => q.name === "jobs");
    assert.equal(jobs.depth + jobs.in_flight, 1, "a repeated receipt id is stored once");
  });
});

Deno.test("a delivery is a child of the enqueue call's span; a direct enqueue naming another trace keeps it", async () => {
  await withEngine({ adapter: "memory", default_queue: FAST }, async (engine, worker) => {
    const frames: Frame[] = [];
    const arrived = Promise.withResolvers<void>();
    worker.serve("jobs::run", (_data, frame) => {
      frames.push(frame);
      if (frames.length === 2) arrived.resolve();
      return null;
    });
    const traceA = "aa".repeat(16);
    const traceB = "bb".repeat(16);
    const callerSpan = "1".repeat(16);
    const named = `00-${traceB}-${"2".repeat(16)}-01`;
    const cases: { data: string; frame: Frame }[] = [
      // TriggerAction.Enqueue: the engine calls engine::queue::enqueue with the caller's context.
      {
        data: "action",
        frame: { function_id: "jobs::run", action: { type: "enqueue", queue: "jobs" } },
      },
      // A direct call whose payload names another trace than the call's own.
      {
        data: "direct",
        frame: {
          function_id: "engine::queue::enqueue",
          data: { queue: "jobs", function_id: "jobs::run", data: "direct", traceparent: named },
        },
      },
    ];
    for (const c of cases) {
      const id = crypto.randomUUID();
      const answer = worker.next((f) => f.type === "invocationresult" && f.invocation_id === id);
      worker.send({
        type: "invokefunction",
        invocation_id: id,
        data: c.data,
        traceparent: `00-${traceA}-${callerSpan}-01`,
        ...c.frame,
      });
      assert.equal((await answer).error, undefined);
    }
    await arrived.promise;
    const parentOf = (data: string) => {
      const frame = frames.find((f) => f.data === data)!;
      return (frame.traceparent as string).split("-").slice(1, 3);
    };
    // A delivery's span is recorded once its answer is in.
    const deliveries = () =>
      [traceA, traceB].map((t) => engine.traces.trace(t).find((s) => s.name === "jobs::run"));
    await eventually(() => deliveries().every((s) => s !== undefined), "both deliveries' spans");
    const spans = engine.traces.trace(traceA);
    const enqueue = spans.find((s) =>
      s.name === "engine::queue::enqueue" && s.parentSpanId === callerSpan
    );
    assert.ok(enqueue, `the enqueue's span under the caller: ${JSON.stringify(spans)}`);
    const delivery = spans.find((s) => s.name === "jobs::run");
    assert.deepEqual(
      [delivery?.parentSpanId, parentOf("action")[0]],
      [enqueue.spanId, traceA],
      "the delivery under the enqueue call, not beside it under the caller",
    );
    const other = engine.traces.trace(traceB).find((s) => s.name === "jobs::run");
    assert.equal(other?.parentSpanId, "2".repeat(16), "the named trace kept");
  });
});

Deno.test("a message id holding a NUL character is refused: SQLite handed it back cut at the NUL, so its ack never matched", async () => {
  const dir = await Deno.makeTempDir({ prefix: "queue-nul-" });
  try {
    await withEngine({ adapter: "sqlite", path: `${dir}/queue.db` }, async (_e, worker) => {
      const nul = '": Must not contain the NUL character: it holds one at index 1';
      const cases: [string, Record<string, unknown>, string][] = [
        [
          "engine::queue::enqueue",
          { queue: "jobs", function_id: "nobody::home", data: 1, messageReceiptId: "a\u0000b" },
          `Invalid input for engine::queue::enqueue: "messageReceiptId${nul}`,
        ],
        [
          "engine::queue::redrive",
          { queue: "jobs", id: "a\u0000b" },
          `Invalid input for engine::queue::redrive: "id${nul}`,
        ],
        [
          "engine::queue::discard",
          { queue: "jobs", id: "a\u0000" },
          `Invalid input for engine::queue::discard: "id${nul}`,
        ],
      ];
      for (const [fn, payload, message] of cases) {
        const answer = await worker.call(fn, payload);
        assert.deepEqual(answer.error, { code: "INVALID_ARGUMENT", message }, fn);
      }
      const list = await worker.call("engine::queue::list", {});
      assert.deepEqual(list.result.queues, [], "nothing was stored");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("enqueue from an in-process caller refuses data JSON cannot hold, naming the field", async () => {
  await withEngine({ adapter: "memory" }, async (engine, worker) => {
    const api = engine.builtinApi("engine-queue");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cases: [unknown, string][] = [
      [{ n: 10n }, "Do not know how to serialize a BigInt"],
      [cycle, "Converting circular structure to JSON"],
      [() => 1, "it is a function"],
      [Symbol("s"), "it is a symbol"],
    ];
    for (const [data, detail] of cases) {
      await assert.rejects(
        api.call("engine::queue::enqueue", { queue: "jobs", function_id: "a::b", data }),
        (error: CallError) => {
          assert.equal(error.code, "INVALID_ARGUMENT");
          assert.equal(
            error.message,
            `Invalid input for engine::queue::enqueue: "data" cannot be stored as JSON: ${detail}`,
          );
          return true;
        },
        detail,
      );
    }
    const list = await worker.call("engine::queue::list", {});
    assert.deepEqual(list.result.queues, [], "nothing was stored");
  });
});

Deno.test("dead letters can be listed, redriven and discarded; unknown ones are errors", async () => {
  const config = { adapter: "memory", queues: { jobs: { ...FAST, max_attempts: 2 } } };
  await withEngine(config, async (engine, worker) => {
    const buried = deadLetterLogs(engine, 2);
    let fail = true;
    const redelivered = Promise.withResolvers<unknown>();
    worker.serve("jobs::flaky", (data) => {
      if (fail) throw new Error(`failed on ${JSON.stringify(data)}`);
      redelivered.resolve(data);
      return null;
    });
    const receipts: string[] = [];
    for (const n of [1, 2]) {
      receipts.push((await worker.enqueue("jobs", "jobs::flaky", { n })).result.messageReceiptId);
    }
    await buried;
    const dead: Frame[] =
      (await worker.call("engine::queue::dead_letters", { queue: "jobs" })).result.dead_letters;
    assert.equal(dead.length, 2);
    const first = dead.find((d) => d.id === receipts[0])!;
    assert.equal(first.function_id, "jobs::flaky");
    assert.deepEqual(first.data, { n: 1 });
    assert.equal(first.attempts, 2);
    assert.equal(first.last_error.code, "invocation_failed");
    assert.equal(first.last_error.message, 'failed on {"n":1}');
    assert.equal(typeof first.failed_at_ms, "number");

    const list = await worker.call("engine::queue::list", {});
    const jobs = list.result.queues.find((q: Frame) => q.name === "jobs");
    assert.deepEqual(
      { depth: jobs.depth, in_flight: jobs.in_flight, dead_letters: jobs.dead_letters },
      { depth: 0, in_flight: 0, dead_letters: 2 },
    );
    assert.equal(jobs.settings.max_attempts, 2);

    const discarded = await worker.call("engine::queue::discard", {
      queue: "jobs",
      id: receipts[1],
    });
    assert.deepEqual(discarded.result, { queue: "jobs", id: receipts[1], discarded: true });

    fail = false;
    const redriven = await worker.call("engine::queue::redrive", {
      queue: "jobs",
      id: receipts[0],
    });
    assert.deepEqual(redriven.result, { queue: "jobs", redriven: 1 });
    assert.deepEqual(await redelivered.promise, { n: 1 });

    const errors: [fn: string, payload: unknown, code: string, message: RegExp][] = [
      [
        "engine::queue::redrive",
        { queue: "jobs", id: "r-x" },
        "NOT_FOUND",
        /^Dead letter "r-x" not found in queue "jobs"$/,
      ],
      [
        "engine::queue::discard",
        { queue: "jobs", id: receipts[1] },
        "NOT_FOUND",
        /not found in queue "jobs"/,
      ],
      [
        "engine::queue::dead_letters",
        { queue: "ghost" },
        "QUEUE_NOT_FOUND",
        /^Queue "ghost" not found$/,
      ],
      [
        "engine::queue::redrive",
        { queue: "ghost" },
        "QUEUE_NOT_FOUND",
        /^Queue "ghost" not found$/,
      ],
      [
        "engine::queue::discard",
        { queue: "jobs", id: 7 },
        "INVALID_ARGUMENT",
        /^Invalid input for engine::queue::discard: "id": Invalid input: expected string, received number$/,
      ],
      ["engine::queue::dead_letters", { queue: "jobs", limit: 0 }, "INVALID_ARGUMENT", /"limit"/],
      ["engine::queue::dead_letters", [], "INVALID_ARGUMENT", /the payload/],
      [
        "engine::queue::enqueue",
        { queue: "jobs", data: 1 },
        "INVALID_ARGUMENT",
        /^Invalid input for engine::queue::enqueue: "function_id" is missing: expected a string$/,
      ],
      [
        "engine::queue::dead_letters",
        { queue: 5 },
        "INVALID_ARGUMENT",
        /^Invalid input for engine::queue::dead_letters: "queue": Invalid input: expected string, received number$/,
      ],
    ];
    for (const [fn, payload, code, message] of errors) {
      const answer = await worker.call(fn, payload);
      assert.equal(answer.error?.code, code, `${fn} ${JSON.stringify(payload)}`);
      assert.match(answer.error.message, message);
    }
    const stats = await worker.call("engine::queue::stats", {});
    assert.deepEqual(
      {
        enqueued: stats.result.totals.enqueued,
        dead_lettered: stats.result.totals.dead_lettered,
        redriven: stats.result.totals.redriven,
        discarded: stats.result.totals.discarded,
      },
      { enqueued: 2, dead_lettered: 2, redriven: 1, discarded: 1 },
    );
  });
});

Deno.test("with the redis adapter a message is stored and delivered the same way", async () => {
  const redis = await startRedisServer();
  try {
    await withEngine(
      { adapter: "redis", url: redis.url, default_queue: FAST },
      async (e, worker) => {
        const delivered = Promise.withResolvers<unknown>();
        worker.serve("jobs::run", (data) => delivered.resolve(data));
        const answer = await worker.enqueue("jobs", "jobs::run", { via: "redis" });
        assert.match(answer.result.messageReceiptId, UUID);
        assert.deepEqual(await delivered.promise, { via: "redis" });
        assert.equal(e.describeBuiltin("engine-queue")?.url, redis.url);
      },
    );
  } finally {
    await redis.stop();
  }
});

Deno.test("a store failure becomes a logged CallError QUEUE_STORE_ERROR naming what failed", async () => {
  const { log, errors } = recordingLog();
  const store = new MemoryStore();
  const config = parseConfig({ adapter: "memory" });
  const functions = createQueueFunctions({
    config,
    store,
    // Never started: the calls below fail before anything is delivered.
    dispatcher: new Dispatcher({
      store,
      settingsOf: () => config.default_queue,
      target: { call: () => Promise.resolve(null), hasFunction: () => false },
      log,
    }),
    counters: new Counters(),
    clock: new ManualClock(),
    log,
  });
  store.close();
  const ctx: InvocationContext = {
    functionId: "engine::queue::enqueue",
    invocationId: "test",
    signal: new AbortController().signal,
  };
  const message = 'Cannot store a message in queue "jobs": The memory queue store is closed';
  const enqueue = functions["engine::queue::enqueue"]!;
  await assert.rejects(
    async () => await enqueue.handler({ queue: "jobs", function_id: "jobs::run", data: {} }, ctx),
    (error) => {
      assert.ok(error instanceof CallError);
      assert.deepEqual(error.toBody(), { code: "QUEUE_STORE_ERROR", message });
      return true;
    },
  );
  assert.deepEqual(errors, [[message, { code: "QUEUE_STORE_ERROR" }]]);
});

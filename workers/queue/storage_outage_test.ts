/**
 * An engine process (`main.ts`) whose queue database refuses writes while
 * messages wait in several queues: its file deleted (no mount needed), or
 * its disk full (a small tmpfs, as root). The log gets one line when writes
 * start failing, naming the file and the error, not one per queue per poll;
 * once the disk has room again, one line says so and the queue works.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type EngineProcess, spawnEngine } from "../../tests/support/engine_process.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { type Message, SdkProcess } from "./_sdk_process.ts";
import { canMount, fillDisk, mountTinyDisk } from "../_shared/_tiny_disk.ts";

const QUEUES = 5;
/** The dispatcher polls about once a second: this window holds a few polls of every queue. */
const POLLS_MS = 3500;

/** An engine on `dir/queue.db` with messages waiting in {@link QUEUES} queues (no consumer). */
async function withWaitingMessages(
  dir: string,
  body: (s: { engine: EngineProcess; producer: SdkProcess; path: string }) => Promise<void>,
): Promise<void> {
  const path = join(dir, "queue.db");
  const config = join(dir, "engine-config.yaml");
  await Deno.writeTextFile(config, storeEngineConfig({ queue: { path } }));
  const engine = await spawnEngine({ config });
  let producer: SdkProcess | undefined;
  try {
    await engine.waitForLine(/Started worker engine-queue/);
    producer = await SdkProcess.start(engine.url);
    for (let q = 0; q < QUEUES; q++) {
      assert.equal((await producer.enqueue(`q${q}`, "nobody::here", { q })).error, undefined);
    }
    await body({ engine, producer, path });
  } finally {
    await producer?.stop();
    await engine.stop();
  }
}

/** The engine-queue lines printed since `from`. */
function queueLines(engine: EngineProcess, from: number): string[] {
  return engine.lines.slice(from).filter((line) => line.includes("[engine-queue]"));
}

function errorOf(answer: Message): string {
  assert.notEqual(answer.error, undefined, `stored: ${JSON.stringify(answer.result)}`);
  return (answer.error as { message: string }).message;
}

Deno.test("queue database deleted under a running engine: one log line, not one per queue per poll", async () => {
  const dir = await Deno.makeTempDir({ prefix: "queue-outage-" });
  try {
    await withWaitingMessages(dir, async ({ engine, producer, path }) => {
      const from = engine.lines.length;
      await Deno.remove(path);
      const outage = await engine.waitForLine(
        /ERROR \[engine-queue\] Writes to the queue database/,
      );
      assert.ok(
        outage.includes(`the queue database "${path}" was deleted while the engine had it open`),
        outage,
      );
      assert.match(errorOf(await producer.enqueue("q0", "nobody::here", {})), /was deleted/);
      // No signal says "the dispatcher polled": a few polls' time, in which nothing more is logged.
      await new Promise((resolve) => setTimeout(resolve, POLLS_MS));
      assert.match(errorOf(await producer.enqueue("q1", "nobody::here", {})), /was deleted/);
      assert.deepEqual(queueLines(engine, from), [outage]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "queue database on a full disk: one line when writes fail, one when they work again",
  ignore: !canMount,
  async fn() {
    // Over SQLite's WAL checkpoint (4 MiB), so the WAL does not fill the disk by itself.
    const disk = await mountTinyDisk("16m");
    const dir = disk.dir;
    try {
      await withWaitingMessages(dir, async ({ engine, producer, path }) => {
        const from = engine.lines.length;
        const filler = join(dir, "filler");
        await fillDisk(filler);
        assert.match(
          errorOf(await producer.enqueue("q0", "nobody::here", {})),
          /database or disk is full/,
        );
        const outage = await engine.waitForLine(
          /ERROR \[engine-queue\] Writes to the queue database fail/,
        );
        assert.ok(outage.includes(`database or disk is full (SQLite database "${path}")`), outage);
        await new Promise((resolve) => setTimeout(resolve, POLLS_MS));
        assert.deepEqual(queueLines(engine, from), [outage]);

        await Deno.remove(filler);
        assert.equal((await producer.enqueue("q0", "nobody::here", {})).error, undefined);
        const back = await engine.waitForLine(/Writes to the queue database ".*" work again/);
        assert.match(back, /INFO {2}\[engine-queue\] .* work again after \d+ s: \d+ calls? failed/);
        assert.deepEqual(queueLines(engine, from), [outage, back]);
        const list = await producer.call("engine::queue::list", {});
        const depth = (list.queues as { depth: number }[]).reduce((n, q) => n + q.depth, 0);
        assert.equal(depth, QUEUES + 1);
      });
    } finally {
      await disk.unmount();
    }
  },
});

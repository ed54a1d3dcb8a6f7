/**
 * An engine process (`main.ts`) whose state and queue databases are each on
 * a 1 MiB tmpfs (as root): the disk fills, writes fail, and once a little
 * space is freed (less than SQLite's 4 MiB WAL checkpoint size) writes work
 * again and keep working. Before, the WAL took the freed space before it
 * ever reached its checkpoint size, and writes failed again for good.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnEngine } from "../../tests/support/engine_process.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { type Message, SdkProcess } from "../queue/_sdk_process.ts";
import { canMount, fillDisk, mountTinyDisk, type TinyDisk } from "./_tiny_disk.ts";

/** Frees `bytes` of `filler`'s end. */
async function free(filler: string, bytes: number): Promise<void> {
  const { size } = await Deno.stat(filler);
  await Deno.truncate(filler, Math.max(0, size - bytes));
}

function errorOf(answer: Message): string | undefined {
  return (answer.error as { message: string } | undefined)?.message;
}

Deno.test({
  name:
    "state and queue on full disks: writes work again once 256 KiB are freed, and go on working",
  ignore: !canMount,
  async fn() {
    const disks: TinyDisk[] = [];
    try {
      disks.push(await mountTinyDisk("1m"), await mountTinyDisk("1m"));
      const [stateDisk, queueDisk] = disks as [TinyDisk, TinyDisk];
      const config = join(stateDisk.dir, "engine-config.yaml");
      await Deno.writeTextFile(
        config,
        storeEngineConfig({
          state: { path: join(stateDisk.dir, "state.db") },
          queue: { path: join(queueDisk.dir, "queue.db") },
        }),
      );
      const engine = await spawnEngine({ config });
      let client: SdkProcess | undefined;
      try {
        await engine.waitForLine(/Started worker engine-queue/);
        await engine.waitForLine(/Started worker engine-state/);
        client = await SdkProcess.start(engine.url);
        const set = async (i: number) =>
          errorOf(
            await client!.send({
              op: "call",
              function_id: "state::set",
              payload: { scope: "s", key: `k${i % 10}`, value: `${i}`.padEnd(1000, "x") },
            }),
          );
        const enqueue = async (i: number) =>
          errorOf(await client!.enqueue("q", "nobody::here", { i, text: "x".repeat(200) }));

        for (const [disk, write] of [[stateDisk, set], [queueDisk, enqueue]] as const) {
          assert.equal(await write(0), undefined);
          const filler = join(disk.dir, "filler");
          await fillDisk(filler);
          assert.match((await write(1))!, /database or disk is full/);
          await free(filler, 256 * 1024);
          // 4 KiB WAL pages or more each: 300 writes are far more than the freed space holds.
          const failures: string[] = [];
          for (let i = 2; i < 300; i++) {
            const error = await write(i);
            if (error !== undefined) failures.push(`write ${i}: ${error}`);
          }
          assert.deepEqual(failures, [], disk === stateDisk ? "state::set" : "enqueue");
        }
        const list = await client.call("engine::queue::list", {});
        // Every message is live. One may be in flight: the first, claimed before the queue knew
        // its function missing, stays leased when putting it back met the full disk.
        const [row] = list.queues as { depth: number; in_flight: number }[];
        assert.equal((row?.depth ?? 0) + (row?.in_flight ?? 0), 299);
      } finally {
        await client?.stop();
        await engine.stop();
      }
    } finally {
      for (const disk of disks) await disk.unmount();
    }
  },
});

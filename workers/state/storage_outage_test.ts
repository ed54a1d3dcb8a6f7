/**
 * An engine process (`main.ts`) whose state database refuses writes: its
 * file deleted (no mount needed), or its disk full (a small tmpfs, as
 * root). Callers get each failure; the log gets one line when writes start
 * failing, naming the file and the cause, and one when they work again, not
 * a line per failed call, nor a pair per flip of a nearly full disk.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { EngineProcess } from "../../tests/support/engine_process.ts";
import { canMount, fillDisk, mountTinyDisk } from "../_shared/_tiny_disk.ts";
import { SdkWorkerProcess, startEngineProcess } from "./_processes.ts";

/** An engine on `dir/state.db` and a worker calling it. */
async function withEngine(
  dir: string,
  body: (s: { engine: EngineProcess; worker: SdkWorkerProcess; path: string }) => Promise<void>,
): Promise<void> {
  const path = join(dir, "state.db");
  const engine = await startEngineProcess({ path }, dir);
  let worker: SdkWorkerProcess | undefined;
  try {
    worker = await SdkWorkerProcess.start(engine.url);
    await body({ engine, worker, path });
  } finally {
    await worker?.stop();
    await engine.stop();
  }
}

/** The engine-state lines printed since `from`, without the time stamps. */
function stateLines(engine: EngineProcess, from: number): string[] {
  return engine.lines.slice(from).filter((line) => line.includes("[engine-state]"));
}

/** `state::set` of `key` (to `value`, default `key`): its error message, or undefined when it worked. */
async function set(
  worker: SdkWorkerProcess,
  key: string,
  value: string = key,
): Promise<string | undefined> {
  const answer = await worker.call("state::set", { scope: "s", key, value });
  return (answer.error as { message: string } | undefined)?.message;
}

Deno.test("state database deleted under a running engine: every call fails, one log line in all", async () => {
  const dir = await Deno.makeTempDir({ prefix: "state-outage-" });
  try {
    await withEngine(dir, async ({ engine, worker, path }) => {
      assert.equal(await set(worker, "before"), undefined);
      const from = engine.lines.length;
      await Deno.remove(path);
      for (let i = 0; i < 20; i++) {
        assert.match((await set(worker, `k${i}`))!, /was deleted while the engine had it open/);
      }
      const lines = stateLines(engine, from);
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0]!, /ERROR \[engine-state\] Writes to the state database fail: /);
      assert.ok(
        lines[0]!.includes(`the state database "${path}" was deleted while the engine had it open`),
        lines[0]!,
      );
      assert.match(lines[0]!, /: state::set, update and delete fail meanwhile; reads still answer/);
      // Reads still answer from the open file.
      assert.deepEqual(
        (await worker.call("state::get", { scope: "s", key: "before" })).result,
        "before",
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "state database on a full disk: one line when writes fail, one when they work again",
  ignore: !canMount,
  async fn() {
    const disk = await mountTinyDisk("2m");
    try {
      await withEngine(disk.dir, async ({ engine, worker, path }) => {
        assert.equal(await set(worker, "before"), undefined);
        const from = engine.lines.length;
        const filler = join(disk.dir, "filler");
        await fillDisk(filler);
        for (let i = 0; i < 20; i++) {
          assert.match((await set(worker, `full${i}`))!, /database or disk is full/);
        }
        await Deno.remove(filler);
        assert.equal(await set(worker, "after"), undefined);
        const back = await engine.waitForLine(/Writes to the state database ".*" work again/);
        const lines = stateLines(engine, from);
        assert.equal(lines.length, 2, lines.join("\n"));
        assert.ok(
          lines[0]!.includes(
            `ERROR [engine-state] Writes to the state database fail: database or disk is full (SQLite database "${path}")`,
          ),
          lines[0]!,
        );
        assert.equal(lines[1], back);
        assert.match(back, /INFO {2}\[engine-state\] .* work again after \d+ s: 20 calls failed/);
      });
    } finally {
      await disk.unmount();
    }
  },
});

Deno.test({
  name: "state database on a disk filling and emptying by turns: no start and end line per flip",
  ignore: !canMount,
  async fn() {
    const disk = await mountTinyDisk("2m");
    try {
      await withEngine(disk.dir, async ({ engine, worker }) => {
        assert.equal(await set(worker, "before"), undefined);
        const from = engine.lines.length;
        const filler = join(disk.dir, "filler");
        // Far more than the few WAL pages of the write before: the checkpoint after the failure
        // does not give back room enough for its second run (see the README's "Disk full").
        const large = "x".repeat(256 * 1024);
        for (let flip = 0; flip < 6; flip++) {
          await fillDisk(filler);
          assert.match((await set(worker, `full${flip}`, large))!, /database or disk is full/);
          await Deno.remove(filler);
          assert.equal(await set(worker, `room${flip}`), undefined);
        }
        const levels = stateLines(engine, from).map((line) =>
          /(ERROR|WARN|INFO)/.exec(line)?.[1] ?? line
        );
        // The first outage and its end; the second one, the same trouble again, stays open
        // until writes have worked for a while: the later flips log nothing.
        assert.deepEqual(levels, ["ERROR", "INFO", "ERROR"]);
      });
    } finally {
      await disk.unmount();
    }
  },
});

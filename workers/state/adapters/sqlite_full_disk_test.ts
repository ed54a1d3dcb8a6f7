/**
 * The SQLite state adapter on a full disk (a 1 MiB tmpfs, where this process
 * may mount one): writes fail with the function's code naming the key and the
 * database, nothing answered is lost, and writes work again once space is
 * freed, without reopening the store. A write that fails because the WAL
 * took the disk runs again once the checkpoint after it emptied the WAL, and
 * applies once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CallError, type InvocationContext } from "../../../engine/api.ts";
import { recordingLog } from "../../../tests/support/recording_log.ts";
import { createStateFunctions } from "../functions.ts";
import { SqliteStore } from "./sqlite.ts";

/** A 1 MiB tmpfs, or undefined where this process cannot mount one. */
async function tinyDisk(): Promise<{ dir: string; undo(): Promise<void> } | undefined> {
  const dir = await Deno.makeTempDir({ prefix: "state-full-" });
  const mount = Deno.uid() === 0
    ? await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => undefined)
    : undefined;
  if (!mount?.success) {
    await Deno.remove(dir);
    return undefined;
  }
  return {
    dir,
    async undo() {
      await new Deno.Command("umount", { args: [dir] }).output();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("SqliteStore on a full disk: SET_ERROR naming the key and file, nothing answered lost, writes again once space is freed", async () => {
  const disk = await tinyDisk();
  if (disk === undefined) {
    console.log("skipped: this process cannot mount a tmpfs");
    return;
  }
  const path = join(disk.dir, "state.db");
  const filler = join(disk.dir, "filler");
  const store = SqliteStore.open({ path, maxValueBytes: 1 << 20 });
  const { log, errors } = recordingLog();
  const functions = createStateFunctions({ store, log, onChange() {}, location: { path } });
  const ctx: InvocationContext = {
    functionId: "state::set",
    invocationId: "test",
    signal: new AbortController().signal,
  };
  const call = (id: string, payload: unknown) =>
    Promise.resolve(functions[id]!.handler(payload, ctx));
  try {
    // Something else takes half the disk; the state fills the rest.
    await Deno.writeFile(filler, new Uint8Array(512 * 1024));
    const answered: string[] = [];
    let failure: unknown;
    for (let i = 0; failure === undefined && i < 1000; i++) {
      try {
        await call("state::set", { scope: "fill", key: `k${i}`, value: "x".repeat(20_000) });
        answered.push(`k${i}`);
      } catch (error) {
        failure = error;
      }
    }
    assert.ok(failure instanceof CallError, `expected a CallError, got ${failure}`);
    assert.equal(failure.code, "SET_ERROR");
    assert.equal(
      failure.message,
      `Cannot write scope "fill" key "k${answered.length}": database or disk is full (SQLite database "${path}")`,
    );
    assert.deepEqual(errors.at(-1), [failure.message, { code: "SET_ERROR" }]);
    assert.ok(answered.length > 0);

    await Deno.remove(filler);
    await call("state::set", { scope: "fill", key: "after", value: "y".repeat(20_000) });
    const keys = (await call("state::list_keys", { scope: "fill" }) as { key: string }[])
      .map((entry) => entry.key);
    assert.deepEqual(keys, [...answered, "after"].sort());
  } finally {
    store.close();
    await disk.undo();
  }
});

Deno.test("SqliteStore: a write that finds the disk full of WAL runs again once the WAL is emptied; each increment lands once", async () => {
  const disk = await tinyDisk();
  if (disk === undefined) {
    console.log("skipped: this process cannot mount a tmpfs");
    return;
  }
  const path = join(disk.dir, "state.db");
  const { log, infos, errors } = recordingLog();
  // Reopened: the first close copies the WAL into the database, as a store that ran a while has.
  const first = SqliteStore.open({ path, maxValueBytes: 1 << 20 });
  first.set("s", "k", { n: 0 });
  first.close();
  let store = SqliteStore.open({ path, maxValueBytes: 1 << 20, log });
  try {
    // A page of WAL per increment: 600 need 2.4 MiB before SQLite's own checkpoint at 4 MiB,
    // so the WAL fills the 1 MiB disk first. The increment that found it full failed (the
    // checkpoint after it emptied the WAL, and the next ones worked); it now runs again.
    const failures: string[] = [];
    for (let i = 0; i < 600; i++) {
      try {
        store.update("s", "k", [{ type: "increment", path: ["n"], by: 1 }]);
      } catch (error) {
        failures.push(`increment ${i}: ${error instanceof Error ? error.message : error}`);
      }
    }
    assert.deepEqual(failures, []);
    // The disk was found full: the WAL is checkpointed every few pages since.
    assert.ok((await Deno.stat(`${path}-wal`)).size < 256 * 1024);
    assert.deepEqual(store.get("s", "k"), { n: 600 });
    // No call failed, so no outage was logged.
    assert.deepEqual([infos, errors], [[], []]);
    store.close();
    store = SqliteStore.open({ path, maxValueBytes: 1 << 20 });
    assert.deepEqual(store.get("s", "k"), { n: 600 });
  } finally {
    store.close();
    await disk.undo();
  }
});

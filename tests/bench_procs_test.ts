/**
 * The benchmarks' child processes (bench/procs.ts) are stopped on every
 * path: a start that fails stops its process, and a `Proc` in an
 * `AsyncDisposableStack` (as the benchmark scripts hold theirs) is stopped
 * when the stack is disposed.
 */
import assert from "node:assert/strict";
import { readyOrStopped, spawn } from "../bench/procs.ts";

/** Prints "up", then runs until it is stopped. */
const IDLE = ["eval", 'console.log("up"); setInterval(() => {}, 1000);'];

/** Whether process `pid` still exists (a stopped child is reaped by the time stop() resolves). */
async function running(pid: number): Promise<boolean> {
  try {
    await Deno.stat(`/proc/${pid}`);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

Deno.test("readyOrStopped() stops the process when it does not become ready, and rethrows", async () => {
  const proc = spawn(IDLE);
  await proc.waitFor(/^up$/);
  assert.ok(await running(proc.child.pid));
  await assert.rejects(
    readyOrStopped(proc, (p) => p.waitFor(/never printed/, 100)),
    /No line matching \/never printed\//,
  );
  assert.equal(await running(proc.child.pid), false);
  assert.equal((await proc.child.status).signal, "SIGTERM");
});

Deno.test("Proc.waitFor() fails at once when the process exits without printing the line", async () => {
  const proc = spawn(["eval", 'console.log("starting"); Deno.exit(3);']);
  // 60 s: an exit not noticed would run into the time-out, and its timer would fail the op sanitizer.
  await assert.rejects(proc.waitFor(/never printed/, 60_000), {
    message: /^No line matching \/never printed\/: .* exited with code 3:\nstarting$/,
  });
  await assert.rejects(proc.waitFor(/still not printed/, 60_000), /exited with code 3/);
  assert.equal((await proc.waitFor(/^start(ing)$/))[1], "ing", "a printed line is still found");
  await proc.stop();
});

Deno.test("readyOrStopped() leaves a ready process running", async () => {
  await using proc = spawn(IDLE);
  assert.equal((await readyOrStopped(proc, (p) => p.waitFor(/^(up)$/)))[1], "up");
  assert.ok(await running(proc.child.pid));
});

Deno.test("the processes in an AsyncDisposableStack are stopped when a later start fails", async () => {
  const procs = new AsyncDisposableStack();
  const pids: number[] = [];
  await assert.rejects(async () => {
    try {
      for (let i = 0; i < 2; i++) {
        const proc = procs.use(spawn(IDLE));
        pids.push(proc.child.pid);
        await proc.waitFor(/^up$/);
      }
      throw new Error("The next start failed");
    } finally {
      await procs.disposeAsync();
    }
  }, /The next start failed/);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.equal(await running(pid), false, `process ${pid} stopped`);
});

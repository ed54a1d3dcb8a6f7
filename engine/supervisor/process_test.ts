import assert from "node:assert/strict";
import { eventually, groupPids, writeLocalWorker } from "../../tests/support/local_worker.ts";
import { LogStore } from "../observability/logs.ts";
import { SupervisedWorker, type SupervisionOptions } from "./process.ts";

async function setup(
  spec: { start: string; install?: string; env?: Record<string, string> },
  manifest = true,
) {
  const root = await Deno.makeTempDir({ prefix: "process-test-" });
  const folder = `${root}/w`;
  if (manifest) await writeLocalWorker(folder, { name: "w", ...spec });
  else await Deno.mkdir(folder);
  const logs = new LogStore();
  return { root, folder, logs, cleanup: () => Deno.remove(root, { recursive: true }) };
}

function worker(
  s: Awaited<ReturnType<typeof setup>>,
  supervision: Partial<SupervisionOptions> = {},
): SupervisedWorker {
  return new SupervisedWorker({
    name: "w",
    folder: s.folder,
    cacheDir: `${s.root}/cache`,
    env: { FROM_ENGINE: "1" },
    log: s.logs.logger({ source: "w", worker: "w" }),
    supervision,
  });
}

/** A sleep that records each delay and returns at once, until `limit` delays; then it waits for stop. */
function recordingSleep(delays: number[], limit: number): SupervisionOptions["sleep"] {
  return (ms, signal) => {
    delays.push(ms);
    if (delays.length < limit) return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
  };
}

Deno.test("SupervisedWorker restarts a crashing worker with exponential backoff, capped, and reports a crash loop", async () => {
  const s = await setup({ start: "echo boom; echo oops >&2; exit 3" });
  const delays: number[] = [];
  const w = worker(s, {
    initialBackoffMs: 1000,
    maxBackoffMs: 8000,
    crashLoopAfter: 4,
    sleep: recordingSleep(delays, 6),
  });
  try {
    w.start();
    await eventually(() => delays.length === 6, "six restart delays");
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 8000, 8000]);
    const status = w.describe();
    assert.equal(status.status, "crashed");
    assert.equal(status.restarts, 5);
    assert.equal(status.crash_loop, true);
    assert.equal(status.pid, null);
    assert.equal(status.last_exit?.code, 3);
    assert.deepEqual(status.tail.slice(-2).toSorted(), ["boom", "oops"]);
    const entries = s.logs.query({ worker: "w" });
    assert.ok(entries.every((e) => e.source === "w"));
    assert.equal(entries.filter((e) => e.message === "boom" && e.level === "info").length, 6);
    assert.equal(entries.filter((e) => e.message === "oops" && e.level === "warn").length, 6);
    const restarts = entries.filter((e) => e.message.includes("restarting in"));
    assert.equal(restarts.length, 6);
    assert.match(
      restarts[0]!.message,
      /^Worker "w" exited with code 3 after \d+ ms: restarting in 1000 ms$/,
    );
    const loops = entries.filter((e) => e.message.includes("keeps crashing"));
    assert.equal(loops.length, 1, "reported once");
    assert.equal(loops[0]!.level, "error");
    assert.match(loops[0]!.message, /^Worker "w" keeps crashing: 4 exits in a row/);
  } finally {
    await w.stop();
    await s.cleanup();
  }
  assert.equal(w.state, "stopped");
});

Deno.test("SupervisedWorker starts the backoff over after a stable run", async () => {
  const s = await setup({ start: "sleep 0.2; exit 1" });
  const delays: number[] = [];
  const w = worker(s, { stableAfterMs: 100, crashLoopAfter: 2, sleep: recordingSleep(delays, 3) });
  try {
    w.start();
    await eventually(() => delays.length === 3, "three restart delays");
    assert.deepEqual(delays, [1000, 1000, 1000]);
    assert.equal(w.describe().crash_loop, false);
    assert.equal(s.logs.query({ text: "keeps crashing" }).length, 0);
  } finally {
    await w.stop();
    await s.cleanup();
  }
});

Deno.test("SupervisedWorker.stop() ends the worker's whole process group", async (t) => {
  const cases: [string, string][] = [
    ["a worker that exits on SIGTERM", "sleep 300 & echo started; sleep 300"],
    [
      "a worker that ignores SIGTERM gets SIGKILL",
      "trap '' TERM; sleep 300 & echo started; sleep 300",
    ],
  ];
  for (const [name, start] of cases) {
    await t.step(name, async () => {
      const s = await setup({ start });
      const w = worker(s, { stopGraceMs: 300 });
      try {
        w.start();
        await eventually(() => w.describe().tail.includes("started"), "the worker's output");
        const { pid, status } = w.describe();
        assert.equal(status, "running");
        assert.ok(pid !== null && groupPids(pid).length >= 3, "sh and two sleeps");
        await w.stop();
        assert.deepEqual(groupPids(pid), []);
        assert.equal(w.describe().status, "stopped");
        assert.equal(w.describe().pid, null);
        assert.equal(w.describe().restarts, 0);
        assert.equal(s.logs.query({ text: 'Stopped worker "w"' }).length, 1);
      } finally {
        await w.stop();
        await s.cleanup();
      }
    });
  }
});

Deno.test("SupervisedWorker passes the manifest's env and the engine's env to the worker", async () => {
  const s = await setup({
    start: 'echo "$FROM_ENGINE $GREETING"; sleep 300',
    env: { GREETING: "hi" },
  });
  const w = worker(s);
  try {
    w.start();
    await eventually(() => w.describe().tail.includes("1 hi"), "the env echoed");
  } finally {
    await w.stop();
    await s.cleanup();
  }
});

Deno.test("SupervisedWorker's output is text: NO_COLOR is set, and colours written anyway are dropped", async () => {
  const s = await setup({
    start:
      `echo "NO_COLOR=$NO_COLOR"; printf '\\033[1m\\033[31merror\\033[0m: boom\\n' >&2; sleep 300`,
  });
  const w = worker(s);
  try {
    w.start();
    await eventually(
      () => w.describe().tail.includes("error: boom"),
      "the error line, without colours",
    );
    assert.ok(w.describe().tail.includes("NO_COLOR=1"), w.describe().tail.join("\n"));
    const entries = s.logs.query().map((e) => e.message);
    assert.ok(entries.includes("error: boom"), entries.join("\n"));
    assert.ok(!entries.some((m) => m.includes("\x1b")), "no escape codes in the log");
  } finally {
    await w.stop();
    await s.cleanup();
  }
});

Deno.test("SupervisedWorker whose command is missing or not executable names scripts.start and its manifest", async () => {
  const cases: [string, { start: string; files?: Record<string, string> }, RegExp][] = [
    [
      "missing",
      { start: "./no-such-program --flag" },
      /code 127 is the shell's "command not found"/,
    ],
    [
      "not executable",
      { start: "./run.sh", files: { "run.sh": "echo hi\n" } },
      /code 126 is the shell's "cannot execute": is the file executable\?/,
    ],
  ];
  for (const [name, spec, why] of cases) {
    const s = await setup(spec);
    const delays: number[] = [];
    const w = worker(s, { sleep: recordingSleep(delays, 1) });
    try {
      w.start();
      await eventually(() => delays.length === 1, "a restart delay");
      const restart = s.logs.query({ worker: "w" }).find((e) => e.message.includes("restarting"));
      assert.ok(restart, name);
      assert.match(restart.message, /^Worker "w" exited with code 12[67] after \d+ ms: /, name);
      assert.match(restart.message, why, name);
      assert.ok(
        restart.message.endsWith(
          `: check scripts.start in ${s.folder}/engine.worker.yaml: restarting in 1000 ms`,
        ),
        `${name}: ${restart.message}`,
      );
    } finally {
      await w.stop();
      await s.cleanup();
    }
  }
});

Deno.test("SupervisedWorker notices an exit while a process of another session holds its output, and stops", async () => {
  // A detached child (setsid, Node's detached: true) keeps the worker's stdout open after the
  // worker exits; it is in no group the supervisor stops.
  const s = await setup({
    // The daemon prints its pid once in its own session: the worker exits after that.
    start: "setsid sh -c 'echo daemon $$; echo $$ > d.pid; exec sleep 60' & " +
      "until [ -s d.pid ]; do sleep 0.05; done; exit 1",
  });
  const delays: number[] = [];
  const w = worker(s, { sleep: recordingSleep(delays, 1) });
  const messages = () => s.logs.query({ worker: "w" }).map((e) => e.message);
  try {
    w.start();
    await eventually(() => delays.length === 1, "the exit noticed and a restart scheduled");
    assert.ok(
      messages().some((m) =>
        /^Worker "w" exited; a process it started outside its group still holds its output open/
          .test(m)
      ),
      messages().join("\n"),
    );
    assert.equal(w.describe().last_exit?.code, 1);
    assert.equal(w.describe().pid, null);
    await w.stop();
    assert.equal(w.state, "stopped");
  } finally {
    const daemon = Number(messages().find((m) => m.startsWith("daemon "))?.slice(7));
    if (daemon > 0) {
      try {
        Deno.kill(daemon, "SIGKILL");
      } catch { /* gone */ }
    }
    await w.stop();
    await s.cleanup();
  }
});

Deno.test("SupervisedWorker that cannot run is crashed with the reason and not restarted", async (t) => {
  await t.step("no manifest", async () => {
    const s = await setup({ start: "true" }, false);
    const w = worker(s);
    try {
      w.start();
      await eventually(() => w.describe().status === "crashed", "crashed");
      const status = w.describe();
      assert.match(status.error ?? "", /^Cannot start worker "w": No engine\.worker\.yaml in /);
      assert.equal(status.restarts, 0);
      assert.equal(s.logs.query({ level: "error" }).length, 1);
    } finally {
      await w.stop();
      await s.cleanup();
    }
  });
  await t.step("a failed install", async () => {
    const s = await setup({
      install: "echo fetching; echo 'E404 gone' >&2; exit 2",
      start: "true",
    });
    const w = worker(s);
    try {
      w.start();
      await eventually(() => w.describe().status === "crashed", "crashed");
      const status = w.describe();
      assert.match(
        status.error ?? "",
        /^Install of worker "w" failed with exit code 2: see .*w\.log$/,
      );
      assert.equal(status.install_log, `${s.root}/cache/w.log`);
      assert.deepEqual(status.tail.toSorted(), ["E404 gone", "fetching"]);
      assert.equal(status.started_at_ms, null, "never started");
    } finally {
      await w.stop();
      await s.cleanup();
    }
  });
});

Deno.test("SupervisedWorker with a cached install points at the install log of its manifest's name", async () => {
  // The config calls it "w", its manifest "m": the install cache goes by the manifest's name.
  const s = await setup({ start: "true" }, false);
  await writeLocalWorker(s.folder, { name: "m", install: "echo fetched", start: "sleep 300" });
  for (const round of ["installed", "cached"]) {
    const w = worker(s);
    try {
      w.start();
      await eventually(() => w.describe().status === "running", `running (${round})`);
      const log = w.describe().install_log;
      assert.equal(log, `${s.root}/cache/m.log`, round);
      assert.match(await Deno.readTextFile(log!), /fetched/, `the log exists (${round})`);
    } finally {
      await w.stop();
    }
  }
  await s.cleanup();
});

import assert from "node:assert/strict";
import { eventually, groupPids, writeLocalWorker } from "../../tests/support/local_worker.ts";
import type { WorkerEntry } from "../config/schema.ts";
import { LogStore } from "../observability/logs.ts";
import { Supervisor } from "./supervisor.ts";

const ECHO_ENV =
  'echo "$ENGINE_WORKER_NAME|$ENGINE_URL|$ENGINE_WORKER_CONFIG|$ENGINE_TOKEN"; exec sleep 300';

async function setup() {
  const root = await Deno.makeTempDir({ prefix: "supervisor-test-" });
  for (const name of ["a", "b", "c"]) {
    await writeLocalWorker(`${root}/workers/${name}`, { name, start: ECHO_ENV });
  }
  const logs = new LogStore();
  const supervisor = new Supervisor({
    baseDir: root,
    cacheDir: `${root}/.engine/installs`,
    engineUrl: "ws://127.0.0.1:1234",
    token: "secret",
    loggerFor: (name) => logs.logger({ source: name, worker: name }),
    supervision: { stopGraceMs: 500 },
  });
  const running = (name: string) => supervisor.get(name)?.status === "running";
  const output = (name: string) => supervisor.get(name)?.tail.at(0);
  return { root, logs, supervisor, running, output };
}

Deno.test("Supervisor.reconcile() starts added, stops removed and restarts changed workers", async () => {
  const { root, supervisor, running, output } = await setup();
  const a: WorkerEntry = { name: "a", path: "./workers/a" };
  const b: WorkerEntry = { name: "b", path: `${root}/workers/b`, config: { color: "blue" } };
  const builtin: WorkerEntry = { name: "engine-state" };
  try {
    const first = await supervisor.reconcile([a, builtin, b]);
    assert.deepEqual(first, { started: ["a", "b"], stopped: [], restarted: [], kept: [] });
    await eventually(() => running("a") && running("b") && !!output("a") && !!output("b"), "a, b");
    assert.equal(output("a"), "a|ws://127.0.0.1:1234||secret");
    assert.equal(output("b"), 'b|ws://127.0.0.1:1234|{"color":"blue"}|secret');
    assert.deepEqual(supervisor.list().map((s) => s.name), ["a", "b"]);
    assert.equal(supervisor.get("a")?.path, `${root}/workers/a`);
    assert.equal(supervisor.get("a")?.kind, "typescript");
    const pidA = supervisor.get("a")!.pid!;
    const pidB = supervisor.get("b")!.pid!;

    const c: WorkerEntry = { name: "c", path: "./workers/c" };
    const changedB = { ...b, config: { color: "red" } };
    const second = await supervisor.reconcile([a, changedB, c]);
    assert.deepEqual(second, { started: ["c"], stopped: [], restarted: ["b"], kept: [] });
    assert.deepEqual(groupPids(pidB), [], "the old b is gone");
    await eventually(() => output("b") === 'b|ws://127.0.0.1:1234|{"color":"red"}|secret', "new b");
    assert.equal(supervisor.get("a")?.pid, pidA, "a left alone");

    const third = await supervisor.reconcile([c]);
    assert.deepEqual(third, { started: [], stopped: ["a", "b"], restarted: [], kept: [] });
    assert.deepEqual(groupPids(pidA), []);
    assert.deepEqual(supervisor.list().map((s) => s.name), ["c"]);
    await eventually(() => running("c"), "c");
  } finally {
    const pids = supervisor.list().flatMap((s) => s.pid ?? []);
    await supervisor.stop();
    for (const pid of pids) assert.deepEqual(groupPids(pid), []);
    assert.deepEqual(supervisor.list(), []);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("Supervisor.reconcile() leaves a worker running when its changed entry cannot start", async () => {
  const { root, logs, supervisor, running, output } = await setup();
  const a: WorkerEntry = { name: "a", path: "./workers/a" };
  try {
    await supervisor.reconcile([a]);
    await eventually(() => running("a") && !!output("a"), "a");
    const pid = supervisor.get("a")!.pid!;

    const moved = await supervisor.reconcile([{ name: "a", path: "./workers/gone" }]);
    assert.deepEqual(moved, { started: [], stopped: [], restarted: [], kept: ["a"] });
    assert.equal(supervisor.get("a")?.pid, pid, "the running worker is left alone");
    assert.equal(supervisor.get("a")?.path, `${root}/workers/a`);
    assert.equal(
      logs.query({ worker: "a" }).at(-1)?.message,
      `Config change of worker "a" not applied, it runs on as before: No folder at "${root}/workers/gone"`,
    );

    // The same edit again is still a change from what runs; the old entry again is none.
    assert.deepEqual((await supervisor.reconcile([a])).restarted, []);
    assert.equal(supervisor.get("a")?.pid, pid);

    // A usable folder is applied.
    const b: WorkerEntry = { name: "a", path: "./workers/b" };
    assert.deepEqual((await supervisor.reconcile([b])).restarted, ["a"]);
    assert.deepEqual(groupPids(pid), []);
    await eventually(() => running("a") && supervisor.get("a")?.path === `${root}/workers/b`, "a");
  } finally {
    await supervisor.stop();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("Supervisor.restart() starts a worker again with a new process", async () => {
  const { root, supervisor, running } = await setup();
  try {
    await supervisor.reconcile([{ name: "a", path: "./workers/a" }]);
    await eventually(() => running("a"), "a");
    const before = supervisor.get("a")!.pid!;
    assert.equal(await supervisor.restart("a"), true);
    assert.equal(await supervisor.restart("nope"), false);
    await eventually(() => running("a"), "a again");
    assert.notEqual(supervisor.get("a")!.pid, before);
    assert.deepEqual(groupPids(before), []);
  } finally {
    await supervisor.stop();
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * The engine supervising local workers, end to end: a real engine process,
 * real `engine worker …` processes, real SDK workers it starts, hand edits
 * of its config file, crashes, and stopping it with SIGTERM and SIGKILL.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type EngineProcess, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import {
  alive,
  DENO_START,
  eventually,
  groupPids,
  sdkWorkerSource,
  writeLocalWorker,
} from "../support/local_worker.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const GREETER = fileURLToPath(new URL("../fixtures/workers/greeter", import.meta.url));
const CONFIG = `# Supervisor test config: comments stay.
host: 127.0.0.1
port: 0
console:
  enabled: false
workers: []
`;

interface Running {
  dir: string;
  file: string;
  engine: EngineProcess;
  probe: RawWorker;
  cli: (...args: string[]) => ReturnType<typeof runCli>;
  functions: () => Promise<string[]>;
  supervised: (name: string) => Promise<Frame | undefined>;
  stop: () => Promise<void>;
}

async function running(config = CONFIG): Promise<Running> {
  const { dir, file } = await tempConfig(config);
  const engine = await spawnEngine({ config: file });
  const probe = await RawWorker.connect(engine.url);
  const cli = (...args: string[]) =>
    runCli(["worker", ...args, "--config", file], { env: { ENGINE_URL: engine.url } });
  const functions = async () =>
    ((await probe.call("engine::functions::list", {})).result.functions as Frame[]).map((f) =>
      f.function_id as string
    );
  const supervised = async (name: string) =>
    ((await probe.call("engine::supervisor::list", {})).result.workers as Frame[]).find((w) =>
      w.name === name
    );
  const stop = async () => {
    await probe.close();
    if (engine.child.pid) await engine.stop();
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, file, engine, probe, cli, functions, supervised, stop };
}

Deno.test("engine worker add starts the worker in the running engine; list shows it; remove stops it", async (t) => {
  const r = await running();
  try {
    await t.step("before: its functions are not found", async () => {
      const call = await r.probe.call("greeter::hello", {});
      assert.equal(call.error?.message, "Function greeter::hello not found");
    });
    let pid = 0;
    await t.step("add waits for the functions and lists them", async () => {
      const add = await r.cli("add", GREETER);
      assert.equal(add.code, 0, add.stderr + add.stdout);
      const ready =
        /✓ "greeter" is running \(pid (\d+)\) with 2 functions \([\d.]+s\):\n {2}greeter::env\n {2}greeter::hello\n/
          .exec(add.stdout);
      assert.ok(ready, add.stdout);
      pid = Number(ready[1]);
      assert.ok(groupPids(pid).length > 0);
      await r.engine.waitForLine(/\[greeter\] greeter ready \(pid \d+\)/);
      await r.engine.waitForLine(/\[engine\] Config reloaded: started "greeter"/);
    });
    await t.step("its functions answer, with the engine's environment", async () => {
      const hello = await r.probe.call("greeter::hello", { name: "Ada" });
      assert.equal(hello.result.message, "hello Ada");
      const env = await r.probe.call("greeter::env", {});
      assert.equal(env.result.worker_name, "greeter");
      assert.ok(groupPids(pid).includes(env.result.pid), "the worker runs in the supervised group");
    });
    await t.step("list shows status, pid and functions", async () => {
      const list = await r.cli("list", "--json");
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout).workers as Frame[];
      assert.deepEqual(rows.find((w) => w.kind === "external")?.status, "running", "the probe");
      assert.deepEqual(rows.filter((w) => w.kind !== "external"), [{
        name: "greeter",
        kind: "typescript",
        status: "running",
        pid,
        functions: 2,
        restarts: 0,
        error: null,
      }]);
      const table = await r.cli("list");
      assert.match(table.stdout, new RegExp(`\\ngreeter +typescript +running +${pid} +2 +0`));
    });
    await t.step("remove stops it and its functions disappear", async () => {
      const remove = await r.cli("remove", "greeter");
      assert.equal(remove.code, 0, remove.stderr);
      assert.ok(remove.stdout.includes(`Stopped "greeter" in the engine at ${r.engine.url}`));
      assert.deepEqual((await r.functions()).filter((f) => f.startsWith("greeter::")), []);
      assert.deepEqual(groupPids(pid), []);
      assert.equal(await Deno.readTextFile(r.file), CONFIG);
      const call = await r.probe.call("greeter::hello", {});
      assert.equal(call.error?.message, "Function greeter::hello not found");
    });
  } finally {
    await r.stop();
  }
});

Deno.test("engine worker add engine-state starts the built-in worker in the running engine; remove stops it", async () => {
  const r = await running();
  try {
    const add = await r.cli("add", "engine-state");
    assert.equal(add.code, 0, add.stderr + add.stdout);
    assert.match(add.stdout, /✓ "engine-state" is running in the engine with \d+ functions:\n/);
    assert.ok(add.stdout.includes("\n  state::get\n"), add.stdout);
    const set = await r.probe.call("state::set", { scope: "s", key: "k", value: 1 });
    assert.equal(set.error, undefined);

    // An invalid edit leaves it running, and list still shows it.
    const valid = await Deno.readTextFile(r.file);
    await Deno.writeTextFile(r.file, `${valid}bogus: 1\n`);
    await r.engine.waitForLine(/Config change ignored, still running the previous config: .*bogus/);
    const list = await r.cli("list", "--json");
    assert.equal(list.code, 0);
    assert.match(list.stderr, /^Warning: .*bogus: Unknown field/);
    const row = (JSON.parse(list.stdout).workers as Frame[]).find((w) => w.name === "engine-state");
    assert.deepEqual({ ...row, functions: undefined }, {
      name: "engine-state",
      kind: "builtin",
      status: "running",
      pid: null,
      functions: undefined,
      restarts: null,
      error: null,
    });
    await Deno.writeTextFile(r.file, valid);
    await r.engine.waitForLine(/Config file .* is valid again/);

    const remove = await r.cli("remove", "engine-state");
    assert.equal(remove.code, 0, remove.stderr);
    assert.ok(remove.stdout.includes(`Stopped "engine-state" in the engine at ${r.engine.url}`));
    assert.ok(!(await r.functions()).includes("state::get"));
  } finally {
    await r.stop();
  }
});

Deno.test("engine worker add engine-http on a port in use says why at once; a port edit starts it", async () => {
  const r = await running();
  // The reference configuration listens on 127.0.0.1:3111: hold it (if another program
  // already does, it is just as taken).
  let holder: Deno.Listener | undefined;
  try {
    holder = Deno.listen({ hostname: "127.0.0.1", port: 3111 });
  } catch (e) {
    if (!(e instanceof Deno.errors.AddrInUse)) throw e;
  }
  try {
    const t0 = Date.now();
    const add = await r.cli("add", "engine-http", "--timeout-ms", "60000");
    assert.equal(add.code, 1, add.stdout + add.stderr);
    assert.match(
      add.stderr,
      /Error: The engine could not start "engine-http": .*address already in use/,
    );
    assert.ok(add.stderr.includes(`Its entry stays in ${r.file}`), add.stderr);
    // It answered from the engine's record of the failure, not at the end of its time-out.
    assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);

    const list = await r.cli("list", "--json");
    assert.equal(list.code, 0, list.stderr);
    const row = (JSON.parse(list.stdout).workers as Frame[]).find((w) => w.name === "engine-http");
    assert.equal(row?.status, "failed");
    assert.match(String(row?.error), /address already in use/);

    // Moving it to a free port is a config change: the engine starts it and forgets the failure.
    const text = await Deno.readTextFile(r.file);
    assert.match(text, /^ {6}port: 3111$/m);
    await Deno.writeTextFile(r.file, text.replace(/^ {6}port: 3111$/m, "      port: 0"));
    const deadline = Date.now() + 15_000;
    const httpRuns = async () =>
      ((await r.probe.call("engine::workers::list", {})).result.workers as Frame[]).some((w) =>
        w.name === "engine-http" && w.kind === "builtin"
      );
    while (!await httpRuns()) {
      assert.ok(Date.now() < deadline, "engine-http did not start after the port edit");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await r.cli("list", "--json");
    const row2 = (JSON.parse(after.stdout).workers as Frame[]).find((w) =>
      w.name === "engine-http"
    );
    assert.equal(row2?.status, "running", after.stdout);
    assert.equal(row2?.error, null);
  } finally {
    holder?.close();
    await r.stop();
  }
});

Deno.test("the running engine picks up hand edits of its config and reports invalid ones", async (t) => {
  const r = await running();
  await writeLocalWorker(`${r.dir}/hand`, {
    name: "hand",
    start: DENO_START,
    files: { "main.ts": sdkWorkerSource("hand") },
  });
  const entry = "  - name: hand\n    path: ./hand\n    config: {color: blue}\n";
  try {
    await t.step("an added entry starts the worker, with its config block", async () => {
      await Deno.writeTextFile(r.file, CONFIG.replace("workers: []\n", `workers:\n${entry}`));
      await waitForFunctions(r.probe, ["hand::ping"], 20_000);
      const ping = await r.probe.call("hand::ping", {});
      assert.equal(ping.result.worker_config, '{"color":"blue"}');
    });
    await t.step("an invalid edit is reported with file, line and field, and ignored", async () => {
      const invalid = CONFIG.replace("port: 0", "prot: 0").replace("workers: []\n", `workers:\n`);
      await Deno.writeTextFile(r.file, invalid);
      await r.engine.waitForLine(
        new RegExp(
          `ERROR \\[engine\\] Config change ignored, still running the previous config: ${r.file}:3:1: prot: Unknown field`,
        ),
      );
      const ping = await r.probe.call("hand::ping", {});
      assert.ok(ping.result?.pid, "the worker still runs");
    });
    await t.step("removing the entry by hand stops the worker", async () => {
      await Deno.writeTextFile(r.file, CONFIG);
      await r.engine.waitForLine(/Config reloaded: stopped "hand"/);
      await eventually(
        async () => !(await r.functions()).includes("hand::ping"),
        "hand::ping gone",
      );
    });
  } finally {
    await r.stop();
  }
});

Deno.test("a crashing worker is restarted with backoff and reported; worker add says why it is not ready", async () => {
  const r = await running();
  await writeLocalWorker(`${r.dir}/crasher`, {
    name: "crasher",
    start: 'echo "crashing as $ENGINE_WORKER_NAME"; exit 7',
  });
  try {
    const add = await r.cli("add", `${r.dir}/crasher`);
    assert.equal(add.code, 1, add.stdout);
    assert.match(
      add.stderr,
      /^Error: "crasher" crashed: exit code 7 after [\d.]+s; the engine restarts it with backoff\nLast output of "crasher":\n {2}│ crashing as crasher\n/,
    );
    await r.engine.waitForLine(
      /WARN {2}\[crasher\] Worker "crasher" exited with code 7 after \d+ ms: restarting in 1000 ms/,
    );
    await r.engine.waitForLine(
      /\[crasher\] Worker "crasher" exited with code 7 after \d+ ms: restarting in 2000 ms/,
    );
    const status = await r.supervised("crasher");
    assert.ok(status && status.restarts >= 1);
    assert.equal(status.last_exit.code, 7);
    assert.equal(
      r.engine.lines.filter((l) => l.includes("[crasher] crashing as crasher")).length >= 2,
      true,
    );
  } finally {
    await r.stop();
  }
});

Deno.test("stopping the engine leaves no process of its workers behind", async (t) => {
  const cases = [
    ["SIGTERM", "sleep 1000 &"],
    ["SIGKILL", "sleep 1000 &"],
    // After a SIGKILL the lifeline sends SIGTERM, then SIGKILL after the grace period (5 s).
    ["SIGKILL, with a process that ignores SIGTERM", "(trap '' TERM; exec sleep 1000) &"],
  ] as const;
  for (const [name, leftover] of cases) {
    const signal = name.startsWith("SIGTERM") ? "SIGTERM" : "SIGKILL";
    await t.step(name, async () => {
      const r = await running();
      // The start script leaves a `sleep` of its own, and the worker spawns another.
      await writeLocalWorker(`${r.dir}/forker`, {
        name: "forker",
        start: `${leftover} exec ${DENO_START}`,
        files: { "main.ts": sdkWorkerSource("forker", { spawnChild: true }) },
      });
      try {
        await Deno.writeTextFile(
          r.file,
          CONFIG.replace("workers: []\n", "workers:\n  - name: forker\n    path: ./forker\n"),
        );
        await waitForFunctions(r.probe, ["forker::ping"], 20_000);
        const { pid } = (await r.supervised("forker"))!;
        const before = groupPids(pid);
        assert.ok(before.length >= 3, `sleep, deno, its sleep: ${before}`);
        await r.probe.close();
        const code = await r.engine.stop(signal);
        assert.equal(code, signal === "SIGTERM" ? 0 : 137);
        // SIGTERM: the engine stops them before exiting. SIGKILL: the lifeline does.
        await eventually(() => groupPids(pid).length === 0, `group ${pid} gone`, 20_000);
        assert.deepEqual(before.filter(alive), [], "every process is gone");
      } finally {
        await r.stop();
      }
    });
  }
});

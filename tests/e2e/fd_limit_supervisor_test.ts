/**
 * The open-file limit reached where the engine opens files for itself, not
 * for a client: starting a local worker's process (its pipes) and reading
 * the config file for a live reload. The limit is lowered on the running
 * engine with `prlimit --pid` to the files it has open, then raised again:
 * what failed meanwhile must be retried, not given up for good.
 */
import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

function openFds(pid: number): number {
  return [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
}

/**
 * Lowers the open-file limit of `pid` (the soft one: raising a hard limit
 * again takes a privilege); returns a function that puts back the one it had.
 */
async function limitFds(pid: number, limit: number): Promise<() => Promise<void>> {
  const line = Deno.readTextFileSync(`/proc/${pid}/limits`).split("\n")
    .find((l) => l.startsWith("Max open files"))!;
  const [soft, hard] = line.split(/\s+/).slice(3, 5);
  const set = async (value: string) => {
    const out = await new Deno.Command("prlimit", {
      args: ["--pid", String(pid), `--nofile=${value}`],
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await set(`${limit}:${hard}`);
  return () => set(`${soft}:${hard}`);
}

async function engineWithWorker(): Promise<{ engine: EngineProcess; dir: string }> {
  const { dir, file } = await tempConfig(
    "port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: w\n    path: ./w\n",
  );
  await writeLocalWorker(`${dir}/w`, {
    name: "w",
    kind: "shell",
    entry: "run.sh",
    start: "sh run.sh",
    files: { "run.sh": 'echo "w up $$"\nexec sleep 1000\n' },
  });
  return { engine: await spawnEngine({ config: file }), dir };
}

Deno.test({
  name:
    "a local worker that cannot be started at the open-file limit is tried again, and runs once files are free",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { engine, dir } = await engineWithWorker();
    try {
      const first = Number(/w up (\d+)/.exec(await engine.waitForLine(/\[w\] w up \d+/))![1]);
      Deno.kill(first, "SIGKILL");
      await engine.waitForLine(/Worker "w" .*: restarting in 1000 ms/);
      // Its pipes are closed by now; below the files open now, no new one can be opened.
      const pid = engine.child.pid;
      const restore = await limitFds(pid, openFds(pid) - 2);
      const failed = await engine.waitForLine(/Cannot start worker "w"/);
      await restore();
      assert.match(
        failed,
        /ERROR \[w\] Cannot start worker "w": .*Too many open files \(os error 24\) \(the engine's open-file limit is reached: raise it with "ulimit -n"\): retrying in 2000 ms$/,
      );
      await engine.waitForLine(new RegExp(`\\[w\\] w up (?!${first}$)\\d+$`));
      assert.equal(await engine.stop(), 0);
    } finally {
      await engine.kill("SIGKILL");
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a config edit the engine cannot read at the open-file limit is read again, and applied once files are free",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { engine, dir } = await engineWithWorker();
    const file = `${dir}/engine-config.yaml`;
    try {
      // Started up: the worker runs, so the engine has its signal handlers (Deno 2.9.6 panics when
      // it adds one at the open-file limit).
      await engine.waitForLine(/\[w\] w up \d+/);
      const pid = engine.child.pid;
      const restore = await limitFds(pid, openFds(pid) - 2);
      await Deno.writeTextFile(
        file,
        `${await Deno.readTextFile(
          file,
        )}  - name: engine-state\n    config:\n      adapter: memory\n`,
      );
      const failed = await engine.waitForLine(/Config change/);
      await restore();
      assert.match(
        failed,
        /ERROR \[engine\] Config change not read yet: cannot read .*engine-config\.yaml: Too many open files \(os error 24\).* \(the engine's open-file limit is reached: raise it with "ulimit -n"\)$/,
      );
      await engine.waitForLine(/INFO {2}\[engine\] Reading the config file again in 1000 ms$/);
      await engine.waitForLine(/Config reloaded: started "engine-state"/);
      assert.equal(await engine.stop(), 0);
    } finally {
      await engine.kill("SIGKILL");
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * `engine worker add` against a running engine, where a user's mistake
 * shows: a worker that ends at once, a typo in scripts.start, a built-in
 * worker whose port is taken.
 * Real engine and CLI processes, real workers.
 */
import assert from "node:assert/strict";
import { ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

const CONFIG = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers: []\n";

Deno.test("engine worker add of a Python worker that ends without run_forever() says a worker must keep running, and what to run once it is fixed", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  await writeLocalWorker(`${dir}/workers/quits`, {
    name: "quits",
    kind: "python",
    entry: "w.py",
    start: "python3 -u w.py",
    env: { PYTHONPATH: `${ROOT}sdk/python` },
    files: {
      "w.py": [
        "from engine_sdk import register_worker",
        "worker = register_worker()",
        'worker.register_function("quits::f", lambda p: p)',
        'print("registered")',
        "",
      ].join("\n"),
    },
  });
  const engine = await spawnEngine({ config: file });
  try {
    const r = await runCli(["worker", "add", "./workers/quits"], {
      cwd: dir,
      env: { ENGINE_URL: engine.url, ENGINE_CALLER_DIR: dir },
    });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      new RegExp(
        '^Error: "quits" crashed: exit code 0 after [\\d.]+s: it ended, and a worker must keep ' +
          "running \\(a Python worker ends with worker\\.run_forever\\(\\)\\); the engine " +
          'restarts it with backoff\\nLast output of "quits":\\n  │ registered\\n' +
          'Once it is fixed, "engine worker add \\./workers/quits --force" restarts it at once; ' +
          '"engine worker remove quits" takes it out of the config\\n$',
      ),
    );
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine worker add of a worker whose scripts.start names no command says so and names the manifest", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  await writeLocalWorker(`${dir}/workers/typo`, {
    name: "typo",
    entry: "main.ts",
    start: "denoo run main.ts",
    files: { "main.ts": "" },
  });
  const engine = await spawnEngine({ config: file });
  try {
    const r = await runCli(["worker", "add", "./workers/typo"], {
      cwd: dir,
      env: { ENGINE_URL: engine.url, ENGINE_CALLER_DIR: dir },
    });
    assert.equal(r.code, 1, r.stdout);
    // The engine's log said it; the command, which is what the user reads, said only "code 127".
    const firstLine = r.stderr.split("\n")[0]!;
    assert.match(
      firstLine,
      /^Error: "typo" crashed: exit code 127 after [\d.]+s: code 127 is the shell's "command not found": check scripts\.start in (.+); the engine restarts it with backoff$/,
    );
    assert.equal(
      /in (\S+); the engine/.exec(firstLine)![1],
      `${dir}/workers/typo/engine.worker.yaml`,
    );
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine worker add <built-in> that is in the config but could not start asks the engine to try again", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const engine = await spawnEngine({ config: file });
  const cli = () =>
    runCli(["worker", "add", "engine-http", "--config", file], { env: { ENGINE_URL: engine.url } });
  try {
    // The engine has applied a change of the file: it watches it.
    const state = await runCli(["worker", "add", "engine-state", "--config", file], {
      env: { ENGINE_URL: engine.url },
    });
    assert.equal(state.code, 0, state.stderr);
    const http = `  - name: engine-http\n    config:\n      port: ${taken.addr.port}\n`;
    await Deno.writeTextFile(file, `${await Deno.readTextFile(file)}${http}`);
    await engine.waitForLine(/Worker "engine-http" failed to start: .*address already in use/);

    const busy = await cli();
    assert.equal(busy.code, 1, busy.stdout);
    assert.ok(
      busy.stdout.startsWith(
        `Worker "engine-http" is in ${file} (line 10), but the engine could not start it: ` +
          `Cannot listen on 127.0.0.1:${taken.addr.port}: address already in use. ` +
          "Asking the engine to try again\n",
      ),
      busy.stdout,
    );
    assert.match(busy.stderr, /^Error: The engine could not start "engine-http": /);
    assert.match(busy.stderr, /"engine worker add engine-http" asks it to try again\.\n$/);

    taken.close();
    const freed = await cli();
    assert.equal(freed.code, 0, freed.stderr);
    assert.match(freed.stdout, /✓ "engine-http" is running in the engine/);
    const reply = await fetch(`http://127.0.0.1:${taken.addr.port}/nothing-here`);
    assert.equal(reply.status, 404, "engine-http answers on the port it could not have before");
    await reply.body?.cancel();
  } finally {
    try {
      taken.close();
    } catch {
      // closed already
    }
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

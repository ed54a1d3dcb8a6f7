/**
 * `engine worker add` against a running engine, where a user's mistake
 * shows: a worker that ends at once, a built-in worker whose port is taken.
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

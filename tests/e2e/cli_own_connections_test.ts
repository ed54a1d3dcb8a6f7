/**
 * The CLI's own connections (each command opens one; `engine logs -f` keeps
 * one open) are tools, not workers: the engine's log has no line for them
 * (in a quickstart run 65 of `engine logs`' 100 lines were theirs), and
 * `engine worker list` does not list them as workers (`engine logs -f` was
 * an "external" worker named `engine-logs`) but counts them.
 * `engine::workers::list` lists every connection, as the reference does,
 * each with its `sdk`. A spawned engine, the CLI as real processes.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { spawnLineProcess } from "../support/line_process.ts";
import { RawWorker } from "../support/raw_worker.ts";

const CONFIG = "host: 127.0.0.1\nport: 0\nworkers: []\nconsole:\n  enabled: false\n";

Deno.test("the CLI's own connections leave no line in the log and are counted, not listed, by engine worker list", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file, cwd: dir });
  const env = { ENGINE_URL: engine.url };
  const wrote = await runCli(
    ["trigger", "--function-id=engine::log::info", '--payload={"message":"first"}'],
    { env },
  );
  assert.equal(wrote.code, 0, wrote.stderr);
  const follow = spawnLineProcess(["run", "--allow-all", MAIN, "logs", "-f", "-n", "1"], {
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    name: "engine logs -f",
    timeoutMs: 20_000,
  });
  let probe: RawWorker | undefined;
  try {
    await follow.waitForLine(/INFO +\[engine-cli\] first$/); // its past entry: it listens now
    for (let i = 0; i < 3; i++) {
      const health = await runCli(["trigger", "--function-id=engine::health::check"], { env });
      assert.equal(health.code, 0, health.stderr);
    }
    // A worker of the user's says who it is: its line stays.
    probe = await RawWorker.connect(engine.url);
    probe.send({
      type: "invokefunction",
      function_id: "engine::workers::register",
      data: { name: "probe", runtime: "deno", pid: 4242 },
      action: { type: "void" },
    });
    await follow.waitForLine(/Worker "probe" registered \(deno, pid 4242\)/);

    const listed = await runCli(["worker", "list", "--config", file, "--json"], { env });
    assert.equal(listed.code, 0, listed.stderr);
    const json = JSON.parse(listed.stdout);
    assert.deepEqual(
      json.workers.map((w: { name: string; kind: string }) => `${w.name} ${w.kind}`),
      ["probe external"],
    );
    assert.equal(json.cli_connections, 1, "engine logs -f (not the list's own connection)");
    const table = await runCli(["worker", "list", "--config", file], { env });
    assert.equal(table.code, 0, table.stderr);
    assert.doesNotMatch(table.stdout.split("\n\n")[0]!, /engine-logs|engine-cli/);
    assert.match(table.stdout, /^probe +external +running +4242 /m);
    assert.match(
      table.stdout,
      /\n\n1 connection of the engine CLI itself is not listed: engine-logs\n$/,
    );

    // engine::workers::list keeps every connection, each with its sdk.
    const all = await probe.call("engine::workers::list", {});
    const sdks = all.result.workers.map((w: { name: string; sdk: unknown }) =>
      `${w.name} ${w.sdk}`
    );
    assert.ok(sdks.includes("engine-logs engine-cli"), sdks.join(", "));

    const logs = await runCli(["logs", "--level", "debug", "-n", "1000"], { env });
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /Worker "probe" registered/);
    assert.doesNotMatch(logs.stdout, /"engine-(cli|logs)"/);
  } finally {
    probe?.close();
    await follow.kill("SIGINT");
    await engine.stop();
  }
});

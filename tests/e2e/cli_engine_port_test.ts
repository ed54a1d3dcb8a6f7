/**
 * The CLI finds the engine that runs a config, also where the config's
 * port does not say where it listens (`port: ${ENGINE_PORT:…}` with the
 * variable set for the engine only): the engine records its URL in
 * `.engine/`, and the CLI trusts that record only when an engine there
 * answers for the same config. Real engine and CLI processes.
 */
import assert from "node:assert/strict";
import { recordFile } from "../../cli/engine_record.ts";
import { type EngineProcess, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import {
  DENO_START,
  eventually,
  sdkWorkerSource,
  writeLocalWorker,
} from "../support/local_worker.ts";
import { freePort } from "../support/ports.ts";

/** Two ports that were free a moment ago, different. */
function twoPorts(): [number, number] {
  const a = freePort();
  for (;;) {
    const b = freePort();
    if (b !== a) return [a, b];
  }
}

const configText = (port: string) =>
  `host: 127.0.0.1\nport: ${port}\nconsole:\n  enabled: false\nworkers: []\n`;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The CLI run in `dir`, as a user's shell there runs it: no ENGINE_URL, no ENGINE_PORT. */
const cliIn = (dir: string, env: Record<string, string> = {}) => (...args: string[]) =>
  runCli(args, { cwd: dir, env: { ENGINE_CALLER_DIR: dir, ENGINE_URL: "", ...env } });

/** Starts the engine of `file` and waits until it has recorded where it listens. */
async function spawnRecorded(file: string, env: Record<string, string>): Promise<EngineProcess> {
  const engine = await spawnEngine({ config: file, env });
  const record = (await recordFile(file))!;
  try {
    await eventually(() => exists(record), `the engine's record ${record}`);
  } catch (e) {
    await engine.stop("SIGKILL");
    throw e;
  }
  return engine;
}

Deno.test("the CLI finds the engine started with ENGINE_PORT, which the config's port does not say; --url and ENGINE_URL still win", async () => {
  const [configured, actual] = twoPorts();
  const { dir, file } = await tempConfig(configText(`\${ENGINE_PORT:${configured}}`));
  await writeLocalWorker(`${dir}/w`, {
    name: "w",
    start: DENO_START,
    files: { "main.ts": sdkWorkerSource("w") },
  });
  const cli = cliIn(dir);
  const url = `ws://127.0.0.1:${actual}`;
  const engine = await spawnRecorded(file, { ENGINE_PORT: String(actual) });
  let running = true;
  try {
    assert.equal(engine.port, actual);
    const added = await cli("worker", "add", "./w");
    assert.equal(added.code, 0, `${added.stdout}\n${added.stderr}`);
    assert.match(added.stdout, /✓ "w" is running \(pid \d+\) with 1 function/);
    assert.match(added.stdout, /^ {2}w::ping$/m);

    const list = await cli("worker", "list", "--json");
    assert.equal(list.code, 0, list.stderr);
    assert.equal(JSON.parse(list.stdout).engine, url);

    const ping = await cli("trigger", "--function-id", "w::ping");
    assert.equal(ping.code, 0, ping.stderr);
    assert.equal(typeof JSON.parse(ping.stdout).pid, "number");

    const logs = await cli("logs", "--worker", "w", "--limit", "1000");
    assert.equal(logs.code, 0, logs.stderr);

    // Told where to look, the CLI looks there.
    const elsewhere = `ws://127.0.0.1:${configured}`;
    const flag = await cli("trigger", "--function-id", "w::ping", `--url=${elsewhere}`);
    assert.equal(flag.code, 1, flag.stdout);
    assert.match(flag.stderr, new RegExp(`^Error: Cannot reach the engine at ${elsewhere}: `));
    const fromEnv = await cliIn(dir, { ENGINE_URL: elsewhere })("worker", "list", "--json");
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    assert.equal(JSON.parse(fromEnv.stdout).engine, null);

    assert.equal(await engine.stop(), 0);
    running = false;
    assert.equal(await exists((await recordFile(file))!), false, "a clean stop removes the record");
  } finally {
    if (running) await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a record left by a killed engine does not mislead the CLI: not when the port is free, taken by another config's engine, or by another program", async () => {
  const [configured, recorded] = twoPorts();
  const mine = await tempConfig(configText(`\${ENGINE_PORT:${configured}}`));
  const other = await tempConfig(configText(String(recorded)));
  const cli = cliIn(mine.dir);
  const expectNoEngine = async (what: string) => {
    const r = await cli("trigger", "--function-id", "engine::health::check");
    assert.equal(r.code, 1, `${what}: ${r.stdout}`);
    assert.match(
      r.stderr,
      new RegExp(`^Error: Cannot reach the engine at ws://127\\.0\\.0\\.1:${configured}: `),
      what,
    );
    const list = await cli("worker", "list", "--json");
    assert.equal(list.code, 0, `${what}: ${list.stderr}`);
    assert.equal(JSON.parse(list.stdout).engine, null, what);
  };
  let otherEngine: EngineProcess | undefined;
  let server: Deno.HttpServer | undefined;
  try {
    const killed = await spawnRecorded(mine.file, { ENGINE_PORT: String(recorded) });
    await killed.kill("SIGKILL");
    assert.equal(await exists((await recordFile(mine.file))!), true, "SIGKILL leaves the record");

    await expectNoEngine("the recorded port is free");

    otherEngine = await spawnEngine({ config: other.file });
    assert.equal(otherEngine.port, recorded);
    await expectNoEngine("another config's engine took the recorded port");
    assert.equal(await otherEngine.stop(), 0);
    otherEngine = undefined;

    server = Deno.serve(
      { hostname: "127.0.0.1", port: recorded, onListen: () => {} },
      () => new Response("not an engine\n"),
    );
    await expectNoEngine("another program took the recorded port");
  } finally {
    await server?.shutdown();
    await otherEngine?.stop();
    await Deno.remove(mine.dir, { recursive: true });
    await Deno.remove(other.dir, { recursive: true });
  }
});

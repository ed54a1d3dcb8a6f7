/**
 * What a supervised worker's processes get of the engine's secrets: a
 * worker gets `ENGINE_TOKEN` (it needs it to connect) but not the console's
 * token; its install script (third-party package scripts run there) gets
 * neither, whether the engine or `engine worker add` runs it. Real engine
 * and CLI processes, real shell scripts reporting which variables they see
 * (never their values).
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

const ENGINE_TOKEN = "engine-token-for-secrets-test";
const CONSOLE_TOKEN = "console-token-for-secrets-test";
const SECRETS_ENV = {
  ENGINE_TOKEN,
  ENGINE_CONSOLE_TOKEN: CONSOLE_TOKEN,
  SECRETS_TEST_OTHER: "kept",
};

/** Shell words printing which of the variables are set, e.g. `seen: token=set console= other=kept`. */
const REPORT = 'echo "seen: token=${ENGINE_TOKEN:+set} console=${ENGINE_CONSOLE_TOKEN:+set} ' +
  'other=${SECRETS_TEST_OTHER:-}"';

const CONFIG = `host: 127.0.0.1
port: 0
console:
  enabled: false
workers:
  - name: envprobe
    path: ./envprobe
`;

async function probeFolder(dir: string): Promise<void> {
  await writeLocalWorker(`${dir}/envprobe`, {
    name: "envprobe",
    kind: "sh",
    entry: "run.sh",
    install: REPORT,
    start: `${REPORT}; exec sleep 600`,
  });
}

Deno.test("a supervised worker gets ENGINE_TOKEN but not ENGINE_CONSOLE_TOKEN; its install gets neither", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  await probeFolder(dir);
  const engine = await spawnEngine({ config: file, env: SECRETS_ENV });
  try {
    const line = await engine.waitForLine(/\[envprobe\] seen: /);
    assert.match(line, /seen: token=set console= other=kept$/);
    const install = await Deno.readTextFile(`${dir}/.engine/installs/envprobe.log`);
    assert.match(install, /^seen: token= console= other=kept$/m);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine worker add runs the install without the CLI's ENGINE_TOKEN and ENGINE_CONSOLE_TOKEN", async () => {
  const { dir, file } = await tempConfig("host: 127.0.0.1\nport: 0\nworkers: []\n");
  await probeFolder(dir);
  try {
    const add = await runCli(["worker", "add", `${dir}/envprobe`, "--config", file, "--no-wait"], {
      env: SECRETS_ENV,
    });
    assert.equal(add.code, 0, add.stderr + add.stdout);
    const install = await Deno.readTextFile(`${dir}/.engine/installs/envprobe.log`);
    assert.match(install, /^seen: token= console= other=kept$/m);
    assert.ok(!install.includes(ENGINE_TOKEN) && !install.includes(CONSOLE_TOKEN));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the engine's tokens printed by a worker reach the log as [redacted]", async () => {
  const { dir, file } = await tempConfig(CONFIG);
  await writeLocalWorker(`${dir}/envprobe`, {
    name: "envprobe",
    kind: "sh",
    entry: "run.sh",
    // A worker printing its environment, and a command line holding the console's token.
    start: `echo "leak: ENGINE_TOKEN=$ENGINE_TOKEN console=${CONSOLE_TOKEN}"; exec sleep 600`,
  });
  const engine = await spawnEngine({ config: file, env: SECRETS_ENV });
  try {
    const line = await engine.waitForLine(/\[envprobe\] leak: /);
    assert.match(line, /leak: ENGINE_TOKEN=\[redacted\] console=\[redacted\]$/);
    const logs = await runCli(["logs", "--url", engine.url, "--worker", "envprobe"], {
      env: SECRETS_ENV,
    });
    assert.match(logs.stdout, /leak: ENGINE_TOKEN=\[redacted\] console=\[redacted\]/);
    assert.ok(!logs.stdout.includes(ENGINE_TOKEN) && !logs.stdout.includes(CONSOLE_TOKEN));
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * The CLI's words when the engine refuses the token in ENGINE_TOKEN (401)
 * while a token rotation waits for a restart: the config file of the
 * caller's folder now sets that token as `auth.token`, after the engine read
 * it to start, so the CLI says a restart applies it; otherwise it says the
 * token is not the one the engine started with, and nothing of a restart
 * (a wrong token, a file edited for another reason, an engine that took its
 * token from its own ENGINE_TOKEN). Real engine and CLI processes.
 */
import assert from "node:assert/strict";
import { readEngineRecord } from "../../cli/engine_record.ts";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";

const OLD = "cli-rotation-old-123";
const NEW = "cli-rotation-new-456";

const config = (auth: string) =>
  `host: 127.0.0.1
port: 0
${auth}console:
  enabled: false
workers: []
`;

const NOT_STARTED_WITH =
  /refused the token in ENGINE_TOKEN \(HTTP 401\): it is not the token the engine started with \(its auth\.token, or its own ENGINE_TOKEN when its config sets none\)$/;
const PENDING = (file: string) =>
  `refused the token in ENGINE_TOKEN (HTTP 401): it is not the token the engine started with, ` +
  `though "auth.token" in ${file} is now this token (a token changed in the config file applies ` +
  "when the engine restarts; until then, send the one it started with)";

/** `engine trigger engine::health::check` run in `dir` with `token` as ENGINE_TOKEN. */
async function call(dir: string, token: string, url?: string): Promise<string> {
  const args = ["trigger", "--function-id=engine::health::check", ...(url ? ["--url", url] : [])];
  const run = await runCli(args, { cwd: dir, env: { ENGINE_TOKEN: token } });
  assert.equal(run.code, 1, run.stdout);
  return run.stderr.trim();
}

/** Waits for the record the CLI reads the engine's start from. */
function recorded(file: string): Promise<void> {
  return eventually(
    async () => (await readEngineRecord(file))?.started !== undefined,
    "the engine's record",
  );
}

Deno.test("auth.token edited live: the CLI refused with the file's new token says a restart applies it", async () => {
  const { dir, file } = await tempConfig(config(`auth:\n  token: ${OLD}\n`));
  const engine = await spawnEngine({ config: file });
  try {
    await recorded(file);
    // The file not changed yet: a wrong token, nothing of a restart.
    assert.match(await call(dir, NEW), NOT_STARTED_WITH);

    await Deno.writeTextFile(file, config(`auth:\n  token: ${NEW}\n`));
    await engine.waitForLine(/Config change of "auth\.token" takes effect/);
    const real = await Deno.realPath(file);
    // Found through the record, or named by --url (localhost for 127.0.0.1).
    const localhost = engine.url.replace("127.0.0.1", "localhost");
    for (const url of [undefined, engine.url, localhost]) {
      const refused = await call(dir, NEW, url);
      assert.ok(refused.endsWith(PENDING(real)), `${url}: ${refused}`);
    }
    // A token the file does not hold either is only wrong.
    assert.match(await call(dir, "cli-rotation-other-789"), NOT_STARTED_WITH);
    // The old token works until the restart.
    const ok = await runCli(["trigger", "--function-id=engine::health::check"], {
      cwd: dir,
      env: { ENGINE_TOKEN: OLD },
    });
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ENGINE_TOKEN changed in the operator's shell: the CLI names ENGINE_TOKEN and says nothing of a restart, even after an edit of the file", async () => {
  const { dir, file } = await tempConfig(config(""));
  const engine = await spawnEngine({ config: file, env: { ENGINE_TOKEN: OLD } });
  try {
    await recorded(file);
    assert.match(await call(dir, NEW), NOT_STARTED_WITH);
    // An edit of another field: the file sets no token, so no rotation waits for a restart.
    await Deno.writeTextFile(file, config("logs:\n  max_entries: 500\n"));
    await engine.waitForLine(/Config change of "logs\.max_entries" takes effect/);
    assert.match(await call(dir, NEW), NOT_STARTED_WITH);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

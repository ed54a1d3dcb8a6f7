/**
 * Rotating `auth.token` by editing the config file of a running engine: the
 * engine logs that the change waits for a restart (naming the field, never a
 * token) and goes on accepting only the token it started with, so nothing
 * that holds it is cut off: a connected SDK worker, the CLI, and a supervised
 * worker it restarts (given that token). After a restart the new token is the
 * only one. Real engine, CLI and worker processes (our TypeScript SDK).
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import {
  DENO_START,
  eventually,
  sdkWorkerSource,
  writeLocalWorker,
} from "../support/local_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

const OLD = "rotation-old-token-123";
const NEW = "rotation-new-token-456";

const config = (token: string) =>
  `host: 127.0.0.1
port: 0
auth:
  token: ${token}
console:
  enabled: false
workers:
  - name: sup
    path: ./sup
`;

/** `engine trigger` of `id` with `token` as ENGINE_TOKEN. */
function trigger(url: string, token: string, id: string, payload = "{}") {
  return runCli(["trigger", `--function-id=${id}`, `--payload=${payload}`, "--url", url], {
    env: { ENGINE_TOKEN: token },
  });
}

Deno.test("auth.token edited live: logged as waiting for a restart; the old token keeps working for workers and the CLI until then", async () => {
  const { dir, file } = await tempConfig(config(OLD));
  await writeLocalWorker(`${dir}/sup`, {
    name: "sup",
    start: DENO_START,
    files: { "main.ts": sdkWorkerSource("sup") },
  });
  await Deno.writeTextFile(`${dir}/outside.ts`, sdkWorkerSource("outside"));
  let engine = await spawnEngine({ config: file });
  const readyCount = () => engine.lines.filter((l) => /\[sup\] ready$/.test(l)).length;
  let outside: Awaited<ReturnType<typeof spawnWorker>> | undefined;
  try {
    await engine.waitForLine(/\[sup\] ready$/);
    outside = await spawnWorker("", { ENGINE_URL: engine.url, ENGINE_TOKEN: OLD }, {
      args: ["run", "--allow-all", `${dir}/outside.ts`],
    });

    await Deno.writeTextFile(file, config(NEW));
    await engine.waitForLine(
      /WARN {2}\[engine\] Config change of "auth\.token" takes effect when the engine restarts: until then the engine accepts only the token it started with/,
    );
    await engine.waitForLine(/Config reloaded$/);

    // The worker connected before the edit, and the CLI with the old token, carry on.
    for (const id of ["sup::ping", "outside::ping"]) {
      const called = await trigger(engine.url, OLD, id);
      assert.equal(called.code, 0, `${id}: ${called.stderr}`);
    }
    const refused = await trigger(engine.url, NEW, "sup::ping");
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused the token in ENGINE_TOKEN \(HTTP 401\)/);

    // A supervised worker restarted now gets the token the engine runs with, and connects.
    const before = JSON.parse((await trigger(engine.url, OLD, "sup::ping")).stdout).pid;
    const restart = await trigger(engine.url, OLD, "engine::supervisor::restart", '{"name":"sup"}');
    assert.equal(restart.code, 0, restart.stderr);
    await eventually(() => readyCount() >= 2, "the restarted supervised worker");
    const after = await trigger(engine.url, OLD, "sup::ping");
    assert.equal(after.code, 0, after.stderr);
    assert.notEqual(JSON.parse(after.stdout).pid, before);

    // No line holds either token.
    const leaked = engine.lines.filter((l) => l.includes(OLD) || l.includes(NEW));
    assert.deepEqual(leaked, []);

    await outside.stop();
    outside = undefined;
    assert.equal(await engine.stop(), 0);

    // Restarted: the new token is the one, for the CLI and the supervised worker alike.
    engine = await spawnEngine({ config: file });
    await engine.waitForLine(/\[sup\] ready$/);
    const renewed = await trigger(engine.url, NEW, "sup::ping");
    assert.equal(renewed.code, 0, renewed.stderr);
    assert.equal((await trigger(engine.url, OLD, "sup::ping")).code, 1);
  } finally {
    await outside?.stop();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Worker connections with a token: our SDK sends ENGINE_TOKEN, the npm
 * iii-sdk sends it through its `headers` option, and a wrong token is
 * refused before anything is registered.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { runCli } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

const TOKEN = "t0k3n-for-tests";

Deno.test("SDK workers present the token; a worker with a wrong token registers nothing", async () => {
  const engine = await startEngine({ port: 0, token: TOKEN, shutdownGraceMs: 0 });
  const ours = await spawnWorker("tests/fixtures/auth/sdk_token_worker.ts", {
    ENGINE_URL: engine.url,
    ENGINE_TOKEN: TOKEN,
  });
  const iii = await spawnWorker("tests/fixtures/auth/iii_token_worker.ts", {
    ENGINE_URL: engine.url,
    III_TOKEN: TOKEN,
  });
  const intruder = await spawnWorker(
    "tests/fixtures/auth/iii_token_worker.ts",
    { ENGINE_URL: engine.url, III_TOKEN: "wrong" },
  );
  const caller = await RawWorker.connect(engine.url, { authorization: `Bearer ${TOKEN}` });
  try {
    await waitForFunctions(caller, ["sdkauth::ping", "iiiauth::ping"]);
    assert.deepEqual((await caller.call("sdkauth::ping", {})).result, { pong: true });
    assert.deepEqual((await caller.call("iiiauth::ping", {})).result, { pong: true });
    // The intruder's attempt must have happened before the count means anything.
    await eventually(
      () => engine.logs.query({ text: "missing or wrong token" }).length > 0,
      'the log line "missing or wrong token" for the intruder',
    );
    const workers = (await caller.call("engine::workers::list", {})).result.workers;
    const iiiWorkers = workers.filter((w: { name: string }) => w.name === "iii-token-worker");
    assert.equal(iiiWorkers.length, 1, "only the worker with the right token got in");
  } finally {
    await caller.close();
    await intruder.stop("SIGKILL");
    await iii.stop("SIGKILL");
    await ours.stop();
    await engine.stop();
  }
});

Deno.test("engine trigger against an engine with a token: a missing or wrong ENGINE_TOKEN is named, not 'Invalid status code: 401'", async () => {
  const engine = await startEngine({ port: 0, token: TOKEN, shutdownGraceMs: 0 });
  const trigger = (env: Record<string, string>) =>
    runCli(["trigger", "--function-id=engine::health::check"], {
      env: { ENGINE_URL: engine.url, ...env },
    });
  try {
    const cases: [Record<string, string>, number, RegExp][] = [
      [{}, 1, /the engine requires a token \(HTTP 401\): set ENGINE_TOKEN/],
      [{ ENGINE_TOKEN: "wrong" }, 1, /the engine refused the token in ENGINE_TOKEN \(HTTP 401\)/],
      [{ ENGINE_TOKEN: TOKEN }, 0, /^$/],
    ];
    for (const [env, code, stderr] of cases) {
      const out = await trigger(env);
      assert.equal(out.code, code, out.stderr);
      assert.match(out.stderr.trim(), stderr);
      assert.doesNotMatch(out.stderr, /Invalid status code/);
      assert.ok(!out.stderr.includes(TOKEN), "the error never shows the engine's token");
    }
  } finally {
    await engine.stop();
  }
});

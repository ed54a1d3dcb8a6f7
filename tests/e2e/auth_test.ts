/**
 * Worker connections with a token: our SDK sends ENGINE_TOKEN, the npm
 * iii-sdk sends it through its `headers` option, and a wrong token is
 * refused before anything is registered.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
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

/**
 * Redis going away under a running engine and coming back: calls to the
 * state worker fail with an error naming Redis, its URL and the cause, and
 * work again once Redis is back, without restarting the engine.
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { startRedisServer } from "../support/redis_server.ts";
import { storeEngineConfig } from "../support/store_engine.ts";

Deno.test("Redis stopped and started again under the engine: clear errors meanwhile, then state works again", async () => {
  let redis = await startRedisServer();
  const { dir, file } = await tempConfig(
    storeEngineConfig({
      state: { adapter: "redis", url: redis.url },
      queue: { adapter: "redis", url: redis.url },
    }),
  );
  const engine = await spawnEngine({ config: file, cwd: dir });
  const env = { ENGINE_URL: engine.url };
  const set = (value: number) =>
    runCli([
      "trigger",
      "--function-id=state::set",
      `--payload={"scope":"s","key":"k","value":${value}}`,
    ], { env });
  try {
    assert.equal((await set(1)).code, 0);

    await redis.stop();
    const failed = await set(2);
    assert.equal(failed.code, 1);
    assert.match(
      failed.stderr,
      new RegExp(
        `SET_ERROR: Cannot write scope "s" key "k": Redis at ${redis.url}/? is unreachable: .*ECONNREFUSED`,
      ),
    );
    assert.doesNotMatch(failed.stderr, /maxRetriesPerRequest/);

    redis = await startRedisServer({ port: redis.port });
    await eventually(async () => (await set(3)).code === 0, "state::set to work again", 20_000);
    const got = await runCli([
      "trigger",
      "--function-id=state::get",
      '--payload={"scope":"s","key":"k"}',
    ], {
      env,
    });
    assert.equal(got.stdout.trim(), "3");
    // engine-state saw the outage (a call failed) and says it is over. engine-queue logs one only
    // if a poll of its fell inside it: a connection back before any of its commands failed is a
    // blip, which logs nothing.
    await engine.waitForLine(/\[engine-state\] Redis at .* is reachable again after \d+ s/);
  } finally {
    assert.equal(await engine.stop(), 0);
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

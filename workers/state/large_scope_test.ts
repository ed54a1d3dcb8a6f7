/**
 * A scope larger than one answer may be (`max_list_bytes`, 32 MiB by
 * default), listed through a real engine process by a worker on the
 * TypeScript SDK, whose connection takes messages up to 64 MiB.
 */

import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../../tests/support/engine_process.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";
import { SdkProcess } from "../queue/_sdk_process.ts";

Deno.test("state::list of a 70 MB scope fails with LIST_TOO_LARGE and the caller's connection serves on", async () => {
  const { dir, file } = await tempConfig(storeEngineConfig({ state: { path: "./state.db" } }));
  const engine = await spawnEngine({ config: file });
  let worker: SdkProcess | undefined;
  try {
    await engine.waitForLine(/^Started worker engine-state/);
    worker = await SdkProcess.start(engine.url);
    const value = "x".repeat(1_000_000);
    for (let i = 0; i < 70; i++) {
      const key = `k${String(i).padStart(2, "0")}`;
      await worker.call("state::set", { scope: "big", key, value });
    }
    const answer = await worker.send({
      op: "call",
      function_id: "state::list",
      payload: { scope: "big" },
    });
    // Before the bound, the engine sent all 70 MB and the SDK closed its connection (code 1009).
    assert.deepEqual(answer.error, {
      code: "LIST_TOO_LARGE",
      message: 'Scope "big" is over 33,554,432 bytes of keys and values (over 34,000,170 bytes ' +
        "in its first 34 entries): a list answers at most 33,554,432 bytes (max_list_bytes); " +
        "raise the limit, or spread the values over more scopes",
    });
    assert.equal(
      (await worker.call("state::get", { scope: "big", key: "k69" }) as unknown as string).length,
      1_000_000,
    );
  } finally {
    await worker?.stop();
    await engine.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A worker written with the npm iii-sdk@0.22.1 registers function ids the
 * engine refuses (`greet` without `::`, `orders.create`, what createStream
 * registers). The refusal goes back as an `error` frame, which that SDK
 * ignores: every call to such an id said only `Function greet not found`,
 * and only the engine's log said why. Now the caller's error says which
 * worker was refused the id and why, as long as that worker is connected.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { parseTransport } from "../../engine/transport/select.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { REFUSED } from "./_iii_refused_worker.ts";

const RULE =
  "a function id is two or more parts separated by \"::\", each part letters, digits, '-' and '_'";

/** Calls `engine::workers::list` until `check` holds for the names listed (the explicit signal). */
async function untilWorkers(caller: RawWorker, check: (names: string[]) => boolean) {
  const deadline = Date.now() + 10_000;
  let names: string[] = [];
  while (Date.now() < deadline) {
    const r = await caller.call("engine::workers::list", {});
    names = (r.result?.workers ?? []).map((w: { name: string }) => w.name);
    if (check(names)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for the workers; connected: ${names.join(", ")}`);
}

Deno.test("a call to an id the engine refused to an iii-sdk worker says why, until that worker leaves", async () => {
  const transport = parseTransport(Deno.env.get("ENGINE_TRANSPORT"));
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
  const caller = await RawWorker.connect(engine.url);
  let worker;
  try {
    worker = await spawnWorker("tests/e2e/_iii_refused_worker.ts", { ENGINE_URL: engine.url });
    // Registered after the refused ones, on the same connection: they have been read.
    await waitForFunctions(caller, ["refused::ok", "refused::relay"]);
    await untilWorkers(caller, (names) => names.includes("refused-worker"));

    for (const id of REFUSED) {
      const expected = {
        code: "function_not_found",
        message:
          `Function ${id} not found: worker "refused-worker" tried to register it and was refused: Invalid function id "${id}": ${RULE}`,
      };
      const called = await caller.call(id, {});
      assert.deepEqual(called.error, expected, `a raw caller of ${id}`);
      // What the iii-sdk user sees, calling it from the worker that registered it.
      const relayed = await caller.call("refused::relay", { target: id });
      // The SDK puts the code before the message.
      assert.deepEqual(relayed.result?.error, {
        code: expected.code,
        message: `${expected.code}: ${expected.message}`,
      }, `the iii-sdk worker calling ${id}`);
    }
    // Ids nobody tried keep the reference's message.
    assert.equal(
      (await caller.call("never::tried", {})).error?.message,
      "Function never::tried not found",
    );

    await worker.stop("SIGKILL");
    worker = undefined;
    await untilWorkers(caller, (names) => !names.includes("refused-worker"));
    for (const id of REFUSED) {
      assert.deepEqual((await caller.call(id, {})).error, {
        code: "function_not_found",
        message: `Function ${id} not found`,
      }, `${id} after the worker left`);
    }
  } finally {
    await worker?.stop("SIGKILL");
    caller.close();
    await engine.stop();
  }
});

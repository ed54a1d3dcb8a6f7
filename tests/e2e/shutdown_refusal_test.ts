/**
 * A worker shutting down answers the calls that reach it then with code
 * `shutdown` (they never ran there). The engine process sends such a call
 * once to another live replica of the function; with none, or when that one
 * refuses too, the caller gets `shutdown` naming the function and worker.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const REFUSE = () => {
  throw Object.assign(new Error("Worker is shutting down"), { code: "shutdown" });
};

async function withEngine(fn: (url: string) => Promise<void>): Promise<void> {
  const { file } = await tempConfig("port: 0\nconsole:\n  enabled: false\nworkers: []\n");
  const engine = await spawnEngine({ config: file });
  try {
    await fn(engine.url);
  } finally {
    await engine.stop();
  }
}

async function replicasUp(caller: RawWorker, id: string, n: number): Promise<void> {
  await waitForFunctions(caller, [id]);
  for (;;) {
    const listed = (await caller.call("engine::functions::list", {})).result.functions;
    if (listed.find((f: { function_id: string }) => f.function_id === id)?.replicas === n) return;
  }
}

Deno.test("a call refused with code shutdown goes to another live replica, once", async () => {
  await withEngine(async (url) => {
    const leaving = await RawWorker.connect(url);
    const staying = await RawWorker.connect(url);
    const caller = await RawWorker.connect(url);
    try {
      leaving.serve("drain::f", REFUSE);
      staying.serve("drain::f", (data) => ({ by: "staying", data }));
      await replicasUp(caller, "drain::f", 2);
      // Equally idle replicas take turns: half of these reach the leaving one first.
      for (let i = 0; i < 10; i++) {
        const answer = await caller.call("drain::f", { i });
        assert.deepEqual(answer.result, { by: "staying", data: { i } }, JSON.stringify(answer));
      }
      const refused = leaving.frames.filter((f) => f.type === "invokefunction");
      assert.ok(refused.length > 0, "the leaving replica was offered calls");
    } finally {
      for (const w of [leaving, staying, caller]) await w.close();
    }
  });
});

Deno.test("a call refused with code shutdown and no replica to take it fails naming the function and worker", async () => {
  await withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    const caller = await RawWorker.connect(url);
    try {
      a.serve("drain::alone", REFUSE);
      await replicasUp(caller, "drain::alone", 1);
      const alone = await caller.call("drain::alone", {});
      assert.equal(alone.error?.code, "shutdown");
      assert.match(
        alone.error.message,
        /^Invocation of drain::alone refused: worker "worker-[0-9a-f]{8}" is shutting down and no other live replica could take the call \(Worker is shutting down\)$/,
      );

      // Both replicas refuse: the call is sent on once, not back and forth.
      a.serve("drain::both", REFUSE);
      b.serve("drain::both", REFUSE);
      await replicasUp(caller, "drain::both", 2);
      const both = await caller.call("drain::both", {});
      assert.equal(both.error?.code, "shutdown");
      const offered = [a, b].flatMap((w) =>
        w.frames.filter((f) => f.type === "invokefunction" && f.function_id === "drain::both")
      );
      assert.equal(offered.length, 2, "offered to each replica once");
    } finally {
      for (const w of [a, b, caller]) await w.close();
    }
  });
});

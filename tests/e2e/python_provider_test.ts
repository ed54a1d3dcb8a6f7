/**
 * A trigger type provided by a Python SDK worker (a real python3 process),
 * bound by a raw-frame worker through a real engine: the provider accepts,
 * fires, refuses and releases triggers.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { ROOT } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

Deno.test("a Python worker provides a trigger type that a raw worker binds, and fires it", async (t) => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const provider = await spawnWorker("", {
    ENGINE_URL: engine.url,
    PYTHONPATH: `${ROOT}sdk/python`,
    PYTHONDONTWRITEBYTECODE: "1",
  }, { cmd: "python3", args: ["-u", `${ROOT}tests/fixtures/core/py_provider.py`] });
  const registrant = await RawWorker.connect(engine.url);
  const isCall = (fn: string, triggerId: string) => (f: Frame) =>
    f.type === "invokefunction" && f.function_id === fn && f.data?.trigger_id === triggerId;
  const bind = (id: string, config: unknown, metadata?: unknown) =>
    registrant.send({
      type: "registertrigger",
      id,
      trigger_type: "py-ticker",
      function_id: "e2e::tick",
      config,
      ...(metadata === undefined ? {} : { metadata }),
    });
  try {
    registrant.serve("e2e::tick", () => "ok");
    registrant.serve("e2e::released", () => "ok");

    await t.step(
      "an accepted trigger fires its function with its config and metadata",
      async () => {
        // Bound before or after the type reaches the engine: a trigger waits for its provider.
        const first = registrant.next(isCall("e2e::tick", "trig-ok"), { timeoutMs: 15_000 });
        bind("trig-ok", { every_ms: 20, on_release: "e2e::released" }, { from: "deno" });
        const call = await first;
        assert.deepEqual(call.data, {
          trigger_id: "trig-ok",
          n: 1,
          config: { every_ms: 20, on_release: "e2e::released" },
          metadata: { from: "deno" },
        });
        const second = await registrant.next(isCall("e2e::tick", "trig-ok"));
        assert.equal(second.data.n, 2);
      },
    );

    await t.step(
      "an exception in register_trigger reaches the registrant, naming the trigger",
      async () => {
        const answer = registrant.next((f) =>
          f.type === "triggerregistrationresult" && f.id === "trig-bad"
        );
        bind("trig-bad", { every_ms: 0 });
        assert.deepEqual(await answer, {
          type: "triggerregistrationresult",
          id: "trig-bad",
          trigger_type: "py-ticker",
          function_id: "e2e::tick",
          error: {
            code: "trigger_registration_failed",
            message:
              'Cannot register trigger "trig-bad" (py-ticker) for "e2e::tick": "every_ms" must be a positive number, got 0',
          },
        });
      },
    );

    await t.step("an unregistered trigger is released and fires no more", async () => {
      const released = registrant.next(isCall("e2e::released", "trig-ok"));
      registrant.send({ type: "unregistertrigger", id: "trig-ok", trigger_type: "py-ticker" });
      await released;
      const since = registrant.frames.length;
      // Three ticks of another trigger: time enough for trig-ok to tick again, had it not stopped.
      const other = registrant.next((f) => isCall("e2e::tick", "trig-2")(f) && f.data.n === 3);
      bind("trig-2", { every_ms: 20 });
      await other;
      const late = registrant.frames.slice(since).filter(isCall("e2e::tick", "trig-ok"));
      assert.deepEqual(late, [], "trig-ok ticked after it was released");
    });

    await t.step("the provider stops cleanly, releasing the triggers it serves", async () => {
      const ticked = registrant.next(isCall("e2e::tick", "trig-3"));
      bind("trig-3", { every_ms: 20, on_release: "e2e::released" });
      await ticked;
      const status = await provider.stop();
      const output = provider.output.join("");
      assert.equal(status.code, 0, output);
      assert.match(output, /^released trig-3$/m);
      assert.doesNotMatch(output, /Traceback|Error|failed/);
    });
  } finally {
    await registrant.close();
    await provider.stop();
    await engine.stop();
  }
});

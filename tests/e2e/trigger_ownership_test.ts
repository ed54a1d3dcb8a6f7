/**
 * One worker's triggers are its own: another connected worker cannot take
 * one over by registering its id (listed to every worker) for its own
 * function.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

interface Listed {
  id: string;
  function_id: string;
  worker_name: string;
}

Deno.test("a worker cannot take over another worker's trigger by its id; its own it may replace", () =>
  withEngine(async (url) => {
    const owner = await RawWorker.connect(url);
    const intruder = await RawWorker.connect(url);
    try {
      owner.send({ type: "registertriggertype", id: "custom", description: "Test triggers" });
      owner.serve("owner::handle", () => ({}));
      await waitForFunctions(owner, ["owner::handle"]);
      const trigger = (w: RawWorker, functionId: string, path: string) =>
        w.send({
          type: "registertrigger",
          id: "route-1",
          trigger_type: "custom",
          function_id: functionId,
          config: { path },
        });
      const listed = async () =>
        ((await owner.call("engine::registered-triggers::list", {})).result
          .registered_triggers as Listed[]).filter((t) => t.id === "route-1");
      trigger(owner, "owner::handle", "/a");
      await owner.next((f) => f.type === "registertrigger" && f.id === "route-1");

      const refused = intruder.next((f) => f.type === "error");
      trigger(intruder, "intruder::steal", "/a");
      assert.equal((await refused).error.code, "trigger_id_taken");
      assert.match((await refused).error.message, /belongs to a trigger of worker/);
      assert.deepEqual((await listed()).map((t) => t.function_id), ["owner::handle"]);

      // The owner itself may still replace it (a config change).
      const again = owner.next((f) => f.type === "registertrigger" && f.config?.path === "/b");
      trigger(owner, "owner::handle", "/b");
      await again;
      assert.equal((await listed()).length, 1);

      // Once the owner is gone, the id is free.
      await owner.close();
      intruder.send({ type: "registertriggertype", id: "custom", description: "Test triggers" });
      const delivered = intruder.next((f) => f.type === "registertrigger" && f.id === "route-1");
      trigger(intruder, "intruder::steal", "/c");
      await delivered;
    } finally {
      await intruder.close();
      await owner.close();
    }
  }));

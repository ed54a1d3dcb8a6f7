/**
 * Registrations repeated on one connection, in raw frames: a trigger
 * registered again under its id with a new config (an `http` route moved)
 * is live at its new place, not removed; a provider registering its trigger
 * type again is not handed the triggers it holds a second time.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";
import { httpWorker } from "../../workers/http/mod.ts";

/** Resolves once the engine has handled every frame `w` sent before (a ping's pong). */
async function handled(w: RawWorker): Promise<void> {
  const pong = w.next((f) => f.type === "pong");
  w.send({ type: "ping" });
  await pong;
}

Deno.test("an http trigger registered again under its id with another api_path serves the new path", async () => {
  const httpPort = freePort();
  await withEngine(async (url) => {
    const w = await RawWorker.connect(url);
    try {
      w.serve("site::hello", () => ({ status_code: 200, body: { hi: 1 } }));
      await waitForFunctions(w, ["site::hello"]);
      const route = (api_path: string) =>
        w.send({
          type: "registertrigger",
          id: "r1",
          trigger_type: "http",
          function_id: "site::hello",
          config: { api_path, http_method: "GET" },
        });
      const status = async (path: string) => {
        const r = await fetch(`http://127.0.0.1:${httpPort}${path}`);
        await r.body?.cancel();
        return r.status;
      };
      route("/a");
      const deadline = Date.now() + 5000;
      while ((await status("/a")) !== 200) assert.ok(Date.now() < deadline, "/a never answered");

      route("/b");
      await handled(w);
      const listed = (await w.call("engine::registered-triggers::list", {})).result
        .registered_triggers.filter((t: Frame) => t.id === "r1");
      assert.deepEqual(listed.map((t: Frame) => [t.config.api_path, t.status]), [["/b", "active"]]);
      // It was removed along with the old one: listed active, answering 404.
      assert.equal(await status("/b"), 200);
      assert.equal(await status("/a"), 404);
    } finally {
      await w.close();
    }
  }, { builtins: [{ worker: httpWorker, config: httpWorker.parseConfig({ port: httpPort }) }] });
});

Deno.test("a provider registering its trigger type again is not handed its triggers twice", () =>
  withEngine(async (url) => {
    const provider = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    try {
      const isRegister = (id: string) => (f: Frame) => f.type === "registertrigger" && f.id === id;
      provider.send({ type: "registertriggertype", id: "tick", description: "ticks" });
      const asked = provider.next(isRegister("t1"));
      user.send({
        type: "registertrigger",
        id: "t1",
        trigger_type: "tick",
        function_id: "jobs::tick",
        config: { every: 1 },
      });
      await asked;
      provider.send({
        type: "triggerregistrationresult",
        id: "t1",
        trigger_type: "tick",
        function_id: "jobs::tick",
      });
      await handled(provider);

      // Again, with t2 waiting too: t2 is handed over, t1 (which it holds) is not.
      const asked2 = provider.next(isRegister("t2"));
      user.send({
        type: "registertrigger",
        id: "t2",
        trigger_type: "tock",
        function_id: "jobs::tick",
        config: {},
      });
      await handled(user);
      provider.send({ type: "registertriggertype", id: "tock", description: "tocks" });
      provider.send({ type: "registertriggertype", id: "tick", description: "ticks, again" });
      await asked2;
      await handled(provider);
      assert.equal(provider.frames.filter(isRegister("t1")).length, 1);
      assert.equal(provider.frames.filter(isRegister("t2")).length, 1);
    } finally {
      await Promise.all([provider.close(), user.close()]);
    }
  }));

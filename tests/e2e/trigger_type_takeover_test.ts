/**
 * A trigger type taken over by another worker (a new version of the
 * provider started before the old one stops, say): the triggers move to the
 * new provider, and the old one is told to let go of each, so no trigger
 * fires from two providers, nor from one its worker has unregistered. A
 * type a built-in worker provides (`http`, `state`) is not taken over.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";
import { httpWorker } from "../../workers/http/mod.ts";

const isRegister = (id: string) => (f: Frame) => f.type === "registertrigger" && f.id === id;
const isUnregister = (id: string) => (f: Frame) => f.type === "unregistertrigger" && f.id === id;

function accept(provider: RawWorker, id: string): void {
  provider.send({
    type: "triggerregistrationresult",
    id,
    trigger_type: "tick",
    function_id: "jobs::tick",
  });
}

function register(user: RawWorker, id: string): void {
  user.send({
    type: "registertrigger",
    id,
    trigger_type: "tick",
    function_id: "jobs::tick",
    config: { every: 1 },
  });
}

/** Resolves once the engine has handled every frame `w` sent before (a ping's pong). */
async function handled(w: RawWorker): Promise<void> {
  const pong = w.next((f) => f.type === "pong");
  w.send({ type: "ping" });
  await pong;
}

Deno.test("a trigger type taken over by another worker: the old provider lets go of its triggers", () =>
  withEngine(async (url) => {
    const old = await RawWorker.connect(url);
    const next = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    try {
      old.send({ type: "registertriggertype", id: "tick", description: "ticks" });
      await handled(old);
      const asked = old.next(isRegister("t1"));
      register(user, "t1");
      await asked;
      accept(old, "t1");
      await handled(old);

      const letGo = old.next(isUnregister("t1"));
      const handed = next.next(isRegister("t1"));
      next.send({ type: "registertriggertype", id: "tick", description: "ticks, v2" });
      assert.equal((await letGo).trigger_type, "tick");
      assert.deepEqual((await handed).config, { every: 1 });
      accept(next, "t1");
      await handled(next);

      // Its worker removes it: the provider that holds it now is told, and only that one.
      const undone = next.next(isUnregister("t1"));
      user.send({ type: "unregistertrigger", id: "t1", trigger_type: "tick" });
      await undone;
      await handled(user);
      assert.equal(old.frames.filter(isUnregister("t1")).length, 1, "told once, at the takeover");
    } finally {
      await Promise.all([old.close(), next.close(), user.close()]);
    }
  }));

Deno.test("a trigger type taken over while the old provider decides: its late yes is undone", () =>
  withEngine(async (url) => {
    const old = await RawWorker.connect(url);
    const next = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    try {
      old.send({ type: "registertriggertype", id: "tick", description: "ticks" });
      await handled(old);
      const asked = old.next(isRegister("t1"));
      register(user, "t1");
      await asked;

      const handed = next.next(isRegister("t1"));
      next.send({ type: "registertriggertype", id: "tick", description: "ticks, v2" });
      await handed;
      accept(next, "t1");
      await handled(next);

      // The old provider says yes only now: it holds a trigger the engine gave to another.
      const undone = old.next(isUnregister("t1"));
      accept(old, "t1");
      await undone;
      const list = await user.call("engine::registered-triggers::list", {});
      const t1 = list.result.registered_triggers.find((t: Frame) => t.id === "t1");
      assert.equal(t1?.status, "active");
    } finally {
      await Promise.all([old.close(), next.close(), user.close()]);
    }
  }));

Deno.test("a trigger type of a built-in worker is not taken over by a worker", async () => {
  const httpPort = freePort();
  await withEngine(async (url) => {
    const user = await RawWorker.connect(url);
    const taker = await RawWorker.connect(url);
    try {
      user.serve("site::hello", () => ({ status_code: 200, body: { hi: 1 } }));
      await waitForFunctions(user, ["site::hello"]);
      user.send({
        type: "registertrigger",
        id: "hello-route",
        trigger_type: "http",
        function_id: "site::hello",
        config: { api_path: "/hello", http_method: "GET" },
      });
      const get = async () => {
        const r = await fetch(`http://127.0.0.1:${httpPort}/hello`);
        return { status: r.status, body: await r.json() };
      };
      const deadline = Date.now() + 5000;
      while ((await get()).status !== 200) {
        assert.ok(Date.now() < deadline, "the route never answered");
      }

      const refused = taker.next((f) => f.type === "error");
      taker.send({ type: "registertriggertype", id: "http", description: "mine now" });
      assert.deepEqual((await refused).error, {
        code: "trigger_type_taken",
        message:
          'Cannot register trigger type "http": the built-in worker "engine-http" provides it, use another id',
      });
      await handled(taker);
      assert.equal(taker.frames.filter((f) => f.type === "registertrigger").length, 0);
      assert.deepEqual(await get(), { status: 200, body: { hi: 1 } });

      // Nor once the worker that asked has left.
      await taker.close();
      assert.deepEqual(await get(), { status: 200, body: { hi: 1 } });
      const types = (await user.call("engine::triggers::list", {})).result.triggers;
      const http = types.find((t: Frame) => t.id === "http");
      assert.equal(http?.worker_name, "engine-http");
    } finally {
      await Promise.all([user.close(), taker.close()]);
    }
  }, { builtins: [{ worker: httpWorker, config: httpWorker.parseConfig({ port: httpPort }) }] });
});

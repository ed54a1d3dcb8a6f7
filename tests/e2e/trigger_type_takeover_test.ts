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

/** The status `user` is shown for trigger `id` (engine::registered-triggers::list). */
async function statusOf(user: RawWorker, id: string): Promise<unknown> {
  const list = await user.call("engine::registered-triggers::list", {});
  return list.result.registered_triggers.find((t: Frame) => t.id === id)?.status;
}

/** Waits until trigger `id` shows `status` (a closed connection is handled by the engine later). */
async function untilStatus(user: RawWorker, id: string, status: string): Promise<void> {
  const deadline = Date.now() + 5000;
  let now = await statusOf(user, id);
  while (now !== status) {
    assert.ok(Date.now() < deadline, `trigger ${id} is ${now}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    now = await statusOf(user, id);
  }
}

Deno.test("a provider that took a type over leaves: the one it replaced, still live, provides it again", () =>
  withEngine(async (url) => {
    // Two replicas of one provider: the second to register the type takes it over.
    const first = await RawWorker.connect(url);
    const second = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    try {
      first.send({ type: "registertriggertype", id: "tick", description: "ticks" });
      await handled(first);
      second.send({ type: "registertriggertype", id: "tick", description: "ticks" });
      await handled(second);
      const asked = second.next(isRegister("t1"));
      register(user, "t1");
      await asked;
      accept(second, "t1");
      await handled(second);
      assert.equal(await statusOf(user, "t1"), "active");

      // The second replica stops (a rolling deploy): the first takes its triggers back.
      const back = first.next(isRegister("t1"));
      await second.close();
      assert.deepEqual((await back).config, { every: 1 });
      accept(first, "t1");
      await handled(first);
      assert.equal(await statusOf(user, "t1"), "active");
      const types = (await user.call("engine::triggers::list", {})).result.triggers;
      assert.equal(types.filter((t: Frame) => t.id === "tick").length, 1);

      // And once it has left too, the trigger waits: nobody stands by any more.
      await first.close();
      await untilStatus(user, "t1", "pending");
    } finally {
      await Promise.all([first.close(), second.close(), user.close()]);
    }
  }));

Deno.test("a provider standing by that leaves or gives the type up is not the one to take it back", () =>
  withEngine(async (url) => {
    const first = await RawWorker.connect(url);
    const second = await RawWorker.connect(url);
    const third = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    try {
      for (const provider of [first, second, third]) {
        provider.send({ type: "registertriggertype", id: "tick", description: "ticks" });
        await handled(provider);
      }
      const asked = third.next(isRegister("t1"));
      register(user, "t1");
      await asked;
      accept(third, "t1");
      await handled(third);

      // The latest standing by (second) gives the type up, the one before it (first) leaves.
      second.send({ type: "unregistertriggertype", id: "tick" });
      await handled(second);
      await first.close();
      await third.close();
      await untilStatus(user, "t1", "pending");
      for (const gone of [first, second]) {
        assert.equal(gone.frames.filter(isRegister("t1")).length, 0);
      }
    } finally {
      await Promise.all([first.close(), second.close(), third.close(), user.close()]);
    }
  }));

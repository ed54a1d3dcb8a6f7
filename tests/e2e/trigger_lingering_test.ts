/**
 * A worker back on a fresh connection (no reattach) while its old one
 * lingers, in raw frames against an engine process: the old connection
 * holds its trigger ids, so the new one's replay is refused
 * (`trigger_id_taken`); when the old connection finally goes, the new one's
 * triggers are registered instead of the route going with it.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";

/** One connection of worker "svc": its name, `svc::hello`, and trigger `r1` (`GET /hello`). */
async function connectSvc(url: string, label: string): Promise<RawWorker> {
  const w = await RawWorker.connect(url);
  await w.call("engine::workers::register", { name: "svc" });
  w.serve("svc::hello", () => ({ status_code: 200, body: { from: label } }));
  await waitForFunctions(w, ["svc::hello"]);
  w.send({
    type: "registertrigger",
    id: "r1",
    trigger_type: "http",
    function_id: "svc::hello",
    config: { api_path: "/hello", http_method: "GET" },
  });
  return w;
}

Deno.test("a worker reconnected while its old connection lingers gets its triggers when the old one goes", async () => {
  const httpPort = freePort();
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n`,
  );
  const engine = await spawnEngine({ config: file });
  const observer = await RawWorker.connect(engine.url);
  let old: RawWorker | undefined;
  let fresh: RawWorker | undefined;
  try {
    const hello = async () => {
      const r = await fetch(`http://127.0.0.1:${httpPort}/hello`);
      return r.status === 200 ? (await r.json()).from : (await r.body?.cancel(), r.status);
    };
    const r1 = async () =>
      ((await observer.call("engine::registered-triggers::list", {})).result
        .registered_triggers as Frame[]).filter((t) => t.id === "r1");
    old = await connectSvc(engine.url, "old");
    const deadline = Date.now() + 10_000;
    while ((await r1())[0]?.status !== "active") assert.ok(Date.now() < deadline, "r1 not active");
    assert.equal(await hello(), "old");

    // The network drops silently: the old connection is neither read nor written from now on.
    fresh = await connectSvc(engine.url, "fresh");
    const refusal = await fresh.next((f) => f.type === "error");
    assert.equal(refusal.error.code, "trigger_id_taken");
    assert.match(refusal.error.message, /registered for this connection if that trigger goes/);

    // The engine notices at last: the old connection goes, and r1 is the fresh one's.
    await old.close();
    for (;;) {
      const listed = await r1();
      assert.ok(listed.length <= 1, `r1 listed twice: ${JSON.stringify(listed)}`);
      if (listed[0]?.status === "active" && (await hello()) === "fresh") break;
      assert.ok(Date.now() < deadline + 10_000, `r1 not back: ${JSON.stringify(listed)}`);
    }
    const functions =
      (await observer.call("engine::functions::info", { function_id: "svc::hello" }))
        .result.functions[0];
    assert.deepEqual(functions.registered_triggers.map((t: Frame) => [t.id, t.status]), [[
      "r1",
      "active",
    ]]);
  } finally {
    await old?.close();
    await fresh?.close();
    await observer.close();
    await engine.stop();
  }
});

Deno.test("a registration kept for a taken trigger id is dropped when its worker unregisters it or leaves", async () => {
  const { file } = await tempConfig(`port: 0\nconsole:\n  enabled: false\nworkers: []\n`);
  const engine = await spawnEngine({ config: file });
  const connect = () => RawWorker.connect(engine.url);
  const [provider, holder, second, third] = await Promise.all([
    connect(),
    connect(),
    connect(),
    connect(),
  ]);
  try {
    provider.send({ type: "registertriggertype", id: "tick", description: "ticks" });
    const tick = (w: RawWorker, functionId: string) =>
      w.send({
        type: "registertrigger",
        id: "k1",
        trigger_type: "tick",
        function_id: functionId,
        config: {},
      });
    const asked = (functionId: string) =>
      provider.next((f) => f.type === "registertrigger" && f.function_id === functionId);
    let question = asked("holder::f");
    tick(holder, "holder::f");
    await question;
    for (const [w, fn] of [[second, "second::f"], [third, "third::f"]] as const) {
      const refused = w.next((f) => f.type === "error");
      tick(w, fn);
      assert.equal((await refused).error.code, "trigger_id_taken");
    }
    // `second` withdraws its registration; `third` is next when the holder goes.
    second.send({ type: "unregistertrigger", id: "k1" });
    await second.call("engine::health::check", {}); // handled before this answer
    question = asked("third::f");
    await holder.close();
    assert.equal((await question).function_id, "third::f");
    assert.equal(provider.frames.some((f) => f.function_id === "second::f"), false);
  } finally {
    await Promise.all([provider, holder, second, third].map((w) => w.close()));
    await engine.stop();
  }
});

/**
 * Triggers refused as taken come back by themselves, in raw frames against
 * an engine process: a deploy's v2 route (the same method and path, another
 * function) refused while v1 holds it is bound once v1's worker leaves, the
 * oldest waiting first; a custom provider's `trigger_taken` refusal works
 * the same way. The listing shows each trigger's status as it changes.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";

/** The listed registered triggers with these ids, by id. */
async function listed(w: RawWorker, ids: string[]): Promise<Record<string, Frame>> {
  const all = (await w.call("engine::registered-triggers::list", {})).result
    .registered_triggers as Frame[];
  return Object.fromEntries(all.filter((t) => ids.includes(t.id)).map((t) => [t.id, t]));
}

/** Waits until `check` holds for the listing of `ids` (the engine's own account). */
async function until(
  w: RawWorker,
  ids: string[],
  check: (t: Record<string, Frame>) => boolean,
): Promise<Record<string, Frame>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await listed(w, ids);
    if (check(now)) return now;
    assert.ok(Date.now() < deadline, `never so: ${JSON.stringify(now)}`);
  }
}

/** A worker serving `functionId` on `POST /x` under trigger `id`. */
async function deploy(url: string, functionId: string, id: string): Promise<RawWorker> {
  const w = await RawWorker.connect(url);
  w.serve(functionId, () => ({ status_code: 200, body: { by: functionId } }));
  await waitForFunctions(w, [functionId]);
  w.send({
    type: "registertrigger",
    id,
    trigger_type: "http",
    function_id: functionId,
    config: { api_path: "/x", http_method: "POST" },
  });
  return w;
}

Deno.test("a route refused to v2 while v1 held it is bound when v1 leaves, the oldest waiting first", async () => {
  const httpPort = freePort();
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config: { port: ${httpPort} }\n`,
  );
  const engine = await spawnEngine({ config: file });
  const workers: RawWorker[] = [];
  try {
    const post = async () => {
      const r = await fetch(`http://127.0.0.1:${httpPort}/x`, { method: "POST" });
      return r.status === 200 ? (await r.json()).by : (await r.body?.cancel(), r.status);
    };
    const ids = ["t-v1", "t-v2", "t-v3"];
    const v1 = await deploy(engine.url, "a::v1", "t-v1");
    workers.push(v1);
    await until(v1, ids, (t) => t["t-v1"]?.status === "active");
    assert.equal(await post(), "a::v1");

    // The frames a worker was sent about its trigger: its refusals (an accepted one gets none).
    const answers = (w: RawWorker, id: string) =>
      w.frames.filter((f) => f.type === "triggerregistrationresult" && f.id === id);
    const w2 = await deploy(engine.url, "b::v2", "t-v2");
    workers.push(w2);
    // The refusal went out before the listing's answer, on the same connection.
    await until(w2, ids, (t) => t["t-v2"]?.status === "failed");
    const [first2] = answers(w2, "t-v2");
    assert.equal(first2?.error.code, "trigger_taken");
    assert.match(first2?.error.message, /already bound to function "a::v1" by trigger "t-v1"/);
    const w3 = await deploy(engine.url, "c::v3", "t-v3");
    workers.push(w3);
    await until(w3, ids, (t) => t["t-v3"]?.status === "failed");

    let before = await listed(w3, ids);
    assert.deepEqual(
      ids.map((id) => [id, before[id]?.status, before[id]?.config_summary]),
      [["t-v1", "active", "POST /x"], ["t-v2", "failed", "POST /x"], [
        "t-v3",
        "failed",
        "POST /x",
      ]],
    );
    assert.equal(await post(), "a::v1");

    // v1 leaves: v2, waiting longest, takes the route; v3 waits on, now for v2.
    const told3 = w3.next((f) => f.type === "triggerregistrationresult" && f.id === "t-v3");
    told3.catch(() => {}); // awaited below: a failure there, not an uncaught one
    await v1.close();
    const after = await until(w3, ids, (t) => t["t-v2"]?.status === "active");
    assert.equal(after["t-v1"], undefined);
    assert.equal(after["t-v2"]!.error, null);
    assert.equal(await post(), "b::v2");
    assert.match((await told3).error.message, /already bound to function "b::v2"/);
    before = await until(w3, ids, (t) => t["t-v3"]?.status === "failed");
    assert.match(before["t-v3"]!.error, /b::v2/);

    // v2 leaves too: v3 takes it.
    await w2.close();
    await until(w3, ids, (t) => t["t-v3"]?.status === "active");
    assert.equal(await post(), "c::v3");
    // Told once per refusal: while v1 held it, then while v2 did.
    assert.equal(answers(w3, "t-v3").length, 2);
    assert.equal(answers(w2, "t-v2").length, 1);
  } finally {
    for (const w of workers) await w.close();
    await engine.stop();
  }
});

Deno.test("a worker's provider refusing a trigger as taken is offered it again when one of its triggers goes", async () => {
  const { file } = await tempConfig(`port: 0\nconsole:\n  enabled: false\nworkers: []\n`);
  const engine = await spawnEngine({ config: file });
  const provider = await RawWorker.connect(engine.url);
  const user = await RawWorker.connect(engine.url);
  try {
    const asked = (id: string) => provider.next((f) => f.type === "registertrigger" && f.id === id);
    const answer = (id: string, error?: Frame) =>
      provider.send({
        type: "triggerregistrationresult",
        id,
        trigger_type: "slot",
        function_id: "jobs::run",
        ...(error ? { error } : {}),
      });
    provider.send({ type: "registertriggertype", id: "slot", description: "one job per slot" });
    const register = (id: string) =>
      user.send({
        type: "registertrigger",
        id,
        trigger_type: "slot",
        function_id: "jobs::run",
        config: { slot: 1, owner: id },
      });
    let question = asked("s1");
    register("s1");
    await question;
    answer("s1");
    question = asked("s2");
    register("s2");
    await question;
    answer("s2", { code: "trigger_taken", message: "slot 1 is held by s1" });
    const ids = ["s1", "s2"];
    const waiting = await until(user, ids, (t) => t.s2?.status === "failed");
    assert.deepEqual(
      [waiting.s1?.status, waiting.s2?.error, waiting.s2?.config_summary],
      ["active", "slot 1 is held by s1", "slot=1, owner=s2"],
    );

    // s1 goes: the provider lets go of it, then is asked for s2 again.
    question = asked("s2");
    const released = provider.next((f) => f.type === "unregistertrigger" && f.id === "s1");
    user.send({ type: "unregistertrigger", id: "s1", trigger_type: "slot" });
    await released;
    const again = await question;
    assert.ok(provider.frames.indexOf(again) > provider.frames.indexOf(await released));
    answer("s2");
    const now = await until(user, ids, (t) => t.s2?.status === "active");
    assert.deepEqual(Object.keys(now), ["s2"]);
  } finally {
    await Promise.all([provider.close(), user.close()]);
    await engine.stop();
  }
});

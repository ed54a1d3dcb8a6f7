/**
 * A worker that provides trigger types and binds triggers of its own to
 * them, then shuts down, leaves no "Trigger type … is gone with its
 * provider" warning: its own triggers go with it, nothing waits. Checked for
 * each SDK against an engine process (ours in TypeScript and Python, and the
 * npm iii-sdk@0.22.1), with the warning lines counted in the engine's log.
 * Nor does a worker that gives its types up before its own triggers (the
 * engine counts only other workers' triggers). The warning stays for what it
 * is meant for: a trigger of another, live worker left waiting for a provider
 * (counted too, so a count of 0 is not a log that was never read).
 */
import assert from "node:assert/strict";
import { registerWorker as iiiRegister } from "iii-sdk";
import { ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";

const TYPES = 5;
const GONE = /^Trigger type "[^"]+" is gone with its provider /;

const PYTHON_WORKER = `
import os
from engine_sdk import register_worker

class Quiet:
    def register_trigger(self, trigger): pass
    def unregister_trigger(self, trigger): pass

worker = register_worker(os.environ["ENGINE_URL"])
worker.register_function("py::tick", lambda payload: payload)
for n in range(${TYPES}):
    worker.register_trigger_type({"id": f"py-type-{n}", "description": "quiet"}, Quiet())
    worker.register_trigger({"type": f"py-type-{n}", "function_id": "py::tick", "config": {"n": n}})
worker.wait_connected(10)
print("ready", flush=True)
worker.run_forever()
`;

async function goneWarnings(caller: RawWorker): Promise<string[]> {
  const { logs } = (await caller.call("engine::logs::list", { level: "warn" })).result;
  return logs.map((l: Frame) => l.message as string).filter((m: string) => GONE.test(m));
}

/** The trigger types the engine lists whose id starts with `prefix`. */
async function typesOf(caller: RawWorker, prefix: string): Promise<string[]> {
  const { triggers } = (await caller.call("engine::triggers::list", {})).result;
  return triggers.map((t: Frame) => t.id as string).filter((id: string) => id.startsWith(prefix));
}

/** Waits until the engine lists `count` types of `prefix` and every trigger of them is active. */
async function until(caller: RawWorker, prefix: string, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const types = await typesOf(caller, prefix);
    const triggers = (await caller.call("engine::registered-triggers::list", {})).result
      .registered_triggers.filter((t: Frame) => t.trigger_type.startsWith(prefix));
    if (
      types.length === count && triggers.length === count &&
      triggers.every((t: Frame) => t.status === "active")
    ) return;
    assert.ok(Date.now() < deadline, `${prefix}: ${types.length} types, not ${count}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `provider` provides trigger type `type`; triggers `own` of its own and
 * `others` of `user` are bound to it, and each offered to the provider.
 */
async function provide(
  provider: RawWorker,
  user: RawWorker,
  type: string,
  own: string[],
  others: string[],
): Promise<void> {
  provider.send({ type: "registertriggertype", id: type, description: "raw" });
  for (
    const [worker, id] of [
      ...own.map((id) => [provider, id] as const),
      ...others.map((id) => [user, id] as const),
    ]
  ) {
    const offered = provider.next((f) => f.type === "registertrigger" && f.id === id);
    worker.send({
      type: "registertrigger",
      id,
      trigger_type: type,
      function_id: "raw::tick",
      config: { id },
    });
    await offered;
  }
}

/** Waits until the engine no longer lists trigger type `type`. */
async function gone(caller: RawWorker, type: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await typesOf(caller, type)).includes(type)) {
    assert.ok(Date.now() < deadline, `trigger type "${type}" is still listed`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("an SDK worker shutting down with triggers of its own trigger types warns of none waiting", async () => {
  const { file } = await tempConfig("port: 0\nconsole:\n  enabled: false\nworkers: []\n");
  const engine = await spawnEngine({ config: file });
  const caller = await RawWorker.connect(engine.url);
  try {
    // Our TypeScript SDK: shutdown().
    const ours = registerWorker(engine.url, { worker_name: "quiet-ts" });
    ours.registerFunction("ts::tick", (d: unknown) => d);
    for (let n = 0; n < TYPES; n++) {
      ours.registerTriggerType({ id: `ts-type-${n}`, description: "quiet" }, {
        registerTrigger: () => {},
        unregisterTrigger: () => {},
      });
      ours.registerTrigger({ type: `ts-type-${n}`, function_id: "ts::tick", config: { n } });
    }
    await until(caller, "ts-type-", TYPES);
    await ours.shutdown();
    await until(caller, "ts-type-", 0);

    // Our Python SDK: SIGTERM under run_forever().
    const py = await spawnWorker("", {
      ENGINE_URL: engine.url,
      PYTHONPATH: `${ROOT}sdk/python`,
      PYTHONDONTWRITEBYTECODE: "1",
    }, { cmd: "python3", args: ["-c", PYTHON_WORKER] });
    try {
      await until(caller, "py-type-", TYPES);
    } finally {
      assert.equal((await py.stop("SIGTERM")).code, 0, py.output.join(""));
    }
    await until(caller, "py-type-", 0);

    // The npm iii-sdk: shutdown().
    const iii = iiiRegister(engine.url, { workerName: "quiet-iii", otel: { enabled: false } });
    iii.registerFunction("iii::tick", (d: unknown) => Promise.resolve(d));
    for (let n = 0; n < TYPES; n++) {
      iii.registerTriggerType({ id: `iii-type-${n}`, description: "quiet" }, {
        registerTrigger: () => Promise.resolve(),
        unregisterTrigger: () => Promise.resolve(),
      });
      iii.registerTrigger({ type: `iii-type-${n}`, function_id: "iii::tick", config: { n } });
    }
    await until(caller, "iii-type-", TYPES);
    await iii.shutdown();
    await until(caller, "iii-type-", 0);

    // The departures are handled, and the warning would have come with them.
    assert.deepEqual(await goneWarnings(caller), []);

    // A worker giving its types up before its own triggers (the frames of a shutdown in that
    // order) and leaving: nothing waits once it is gone.
    const early = await RawWorker.connect(engine.url);
    await provide(early, caller, "raw-early", ["early-own"], []);
    early.send({ type: "unregistertriggertype", id: "raw-early", description: "given up" });
    await early.close();
    await gone(caller, "raw-early");
    assert.deepEqual(await goneWarnings(caller), []);

    // A provider giving up its type while its own trigger and another, live worker's trigger
    // are bound to it: one line, counting the other worker's trigger only.
    const provider = await RawWorker.connect(engine.url);
    await provide(provider, caller, "raw-type", ["own"], ["left-behind"]);
    provider.send({ type: "unregistertriggertype", id: "raw-type", description: "given up" });
    await provider.close();
    await gone(caller, "raw-type");
    const warnings = await goneWarnings(caller);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(
      warnings[0]!,
      /^Trigger type "raw-type" is gone with its provider "[^"]+": 1 trigger\(s\) of it wait/,
    );
  } finally {
    await caller.close();
    await engine.stop();
  }
});

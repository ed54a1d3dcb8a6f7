/**
 * Custom trigger types, driven with raw protocol frames: the engine hands
 * triggers to the worker providing their type, relays its refusals, and
 * keeps the provider and the registrants in step as they come and go.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { RawWorker } from "../support/raw_worker.ts";

Deno.test("custom trigger types: registrations reach the provider and a refusal reaches the registrant", () =>
  withEngine(async (url) => {
    const provider = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    user.send({
      type: "registertrigger",
      id: "t-early",
      trigger_type: "cron",
      function_id: "jobs::tick",
      config: { every: 1 },
    });
    provider.send({ type: "registertriggertype", id: "cron", description: "every N seconds" });
    const early = await provider.next((f) => f.type === "registertrigger" && f.id === "t-early");
    assert.deepEqual(
      early.config,
      { every: 1 },
      "a pending trigger is delivered when its type appears",
    );
    provider.send({
      type: "triggerregistrationresult",
      id: "t-early",
      trigger_type: "cron",
      function_id: "jobs::tick",
    });

    user.send({
      type: "registertrigger",
      id: "t-bad",
      trigger_type: "cron",
      function_id: "jobs::tick",
      config: {},
    });
    await provider.next((f) => f.type === "registertrigger" && f.id === "t-bad");
    provider.send({
      type: "triggerregistrationresult",
      id: "t-bad",
      trigger_type: "cron",
      function_id: "jobs::tick",
      error: { code: "trigger_registration_failed", message: "every is required" },
    });
    const refused = await user.next((f) =>
      f.type === "triggerregistrationresult" && f.id === "t-bad"
    );
    assert.deepEqual(refused.error, {
      code: "trigger_registration_failed",
      message: "every is required",
    });

    const list = await user.call("engine::registered-triggers::list", {});
    const byId = Object.fromEntries(
      list.result.registered_triggers.map((t: { id: string; status: string }) => [t.id, t.status]),
    );
    assert.deepEqual(byId, { "t-early": "active", "t-bad": "failed" });

    user.send({ type: "unregistertrigger", id: "t-early", trigger_type: "cron" });
    await provider.next((f) => f.type === "unregistertrigger" && f.id === "t-early");
    await user.close();
    await provider.close();
  }));

Deno.test("a trigger type's provider leaving: its triggers wait, and the log says how many", () =>
  withEngine(async (url) => {
    const provider = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    provider.send({ type: "registertriggertype", id: "cron", description: "every N seconds" });
    for (const id of ["t1", "t2"]) {
      const asked = provider.next((f) => f.type === "registertrigger" && f.id === id);
      user.send({
        type: "registertrigger",
        id,
        trigger_type: "cron",
        function_id: "jobs::tick",
        config: {},
      });
      await asked;
      provider.send({
        type: "triggerregistrationresult",
        id,
        trigger_type: "cron",
        function_id: "jobs::tick",
      });
    }
    await provider.close();
    const statuses = async () =>
      (await user.call("engine::registered-triggers::list", {})).result.registered_triggers
        .map((t: { status: string }) => t.status);
    const deadline = Date.now() + 5000;
    while ((await statuses()).some((s: string) => s !== "pending")) {
      assert.ok(Date.now() < deadline, "the triggers did not go back to pending");
    }
    const { logs } = (await user.call("engine::logs::list", { level: "warn" })).result;
    assert.ok(
      logs.some((l: { message: string }) =>
        /^Trigger type "cron" is gone with its provider "[^"]+": 2 trigger\(s\) of it wait for a worker that provides it$/
          .test(l.message)
      ),
      JSON.stringify(logs),
    );
    await user.close();
  }));

Deno.test("a trigger removed while its provider is still answering is unregistered with the provider", () =>
  withEngine(async (url) => {
    const provider = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    provider.send({ type: "registertriggertype", id: "tick", description: "ticks" });
    const accept = (id: string) =>
      provider.send({
        type: "triggerregistrationresult",
        id,
        trigger_type: "tick",
        function_id: "jobs::x",
      });
    const register = (id: string) =>
      user.send({
        type: "registertrigger",
        id,
        trigger_type: "tick",
        function_id: "jobs::x",
        config: {},
      });
    // Unregistered by its worker before the provider accepted it.
    register("t-unreg");
    await provider.next((f) => f.type === "registertrigger" && f.id === "t-unreg");
    user.send({ type: "unregistertrigger", id: "t-unreg", trigger_type: "tick" });
    user.send({ type: "ping" });
    await user.next((f) => f.type === "pong");
    const undone = provider.next((f) => f.type === "unregistertrigger" && f.id === "t-unreg");
    accept("t-unreg");
    assert.equal((await undone).trigger_type, "tick");
    // Its worker left before the provider accepted it.
    register("t-left");
    await provider.next((f) => f.type === "registertrigger" && f.id === "t-left");
    await user.close();
    const left = provider.next((f) => f.type === "unregistertrigger" && f.id === "t-left");
    accept("t-left");
    await left;
    const list = await provider.call("engine::registered-triggers::list", {});
    assert.deepEqual(list.result.registered_triggers, []);
    await provider.close();
  }));

Deno.test("a provider that leaves before answering a registration leaves the trigger waiting, not active", () =>
  withEngine(async (url) => {
    const provider = await RawWorker.connect(url);
    const user = await RawWorker.connect(url);
    provider.send({ type: "registertriggertype", id: "cron", description: "every N seconds" });
    const asked = provider.next((f) => f.type === "registertrigger" && f.id === "t-open");
    user.send({
      type: "registertrigger",
      id: "t-open",
      trigger_type: "cron",
      function_id: "jobs::tick",
      config: {},
    });
    await asked; // never answered
    await provider.close();
    const gone = async () =>
      (await user.call("engine::logs::list", { level: "warn" })).result.logs.some((
        l: { message: string },
      ) => l.message.startsWith('Trigger type "cron" is gone with its provider'));
    const deadline = Date.now() + 5000;
    while (!(await gone())) {
      assert.ok(Date.now() < deadline, "the provider's leaving was not logged");
    }
    const { registered_triggers } =
      (await user.call("engine::registered-triggers::list", {})).result;
    assert.deepEqual(registered_triggers.map((t: { status: string }) => t.status), ["pending"]);
    await user.close();
  }));

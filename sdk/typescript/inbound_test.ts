import assert from "node:assert/strict";
import { PendingCalls } from "./calls.ts";
import { Inbound } from "./inbound.ts";
import { TriggerTypeProviders } from "./provider.ts";
import { Registrations } from "./registrations.ts";

/** An Inbound over fresh parts, with what it sent parsed. */
function setup() {
  const sent: Record<string, unknown>[] = [];
  let wake = () => {};
  const registered = new Registrations();
  const types = new TriggerTypeProviders();
  const inbound = new Inbound(undefined, {
    registered,
    types,
    calls: new PendingCalls(),
    send(frame) {
      sent.push(typeof frame === "string" ? JSON.parse(frame) : frame);
      wake();
    },
  });
  /** Resolves at the next frame sent. */
  const nextSend = () => new Promise<void>((resolve) => (wake = resolve));
  const handle = (frame: Record<string, unknown>) => inbound.handle(JSON.stringify(frame));
  return { sent, registered, types, inbound, handle, nextSend };
}

const invoke = (id: string) => ({
  type: "invokefunction",
  invocation_id: id,
  function_id: "slow::run",
  data: {},
});

Deno.test("Inbound.stop() waits for the handlers running and answers later calls with shutdown", async () => {
  const { sent, registered, inbound, handle } = setup();
  let finish!: () => void;
  let runs = 0;
  registered.addFunction("slow::run", () => {
    runs++;
    return new Promise<string>((resolve) => (finish = () => resolve("done")));
  }, {});
  handle(invoke("i-1"));
  let stopped = false;
  const stopping = inbound.stop().then(() => (stopped = true));
  handle(invoke("i-2"));
  handle({ ...invoke("unused"), invocation_id: undefined }); // no id: nothing to answer
  assert.deepEqual(sent.slice(), [{
    type: "invocationresult",
    invocation_id: "i-2",
    function_id: "slow::run",
    error: { code: "shutdown", message: "Worker is shutting down" },
  }]);
  await Promise.resolve();
  assert.equal(stopped, false);
  finish();
  await stopping;
  assert.equal(runs, 1);
  assert.deepEqual(sent.map((f) => [f.invocation_id, f.result]), [["i-2", undefined], [
    "i-1",
    "done",
  ]]);
});

Deno.test("Inbound drops a trigger registration answer decided after the connection reopened", async () => {
  const { sent, types, inbound, handle, nextSend } = setup();
  const accepts = new Map<string, PromiseWithResolvers<() => void>>();
  const accepted = (id: string) =>
    accepts.get(id) ?? accepts.set(id, Promise.withResolvers()).get(id)!;
  types.add({ id: "ticker", description: "" }, {
    registerTrigger: (t) => new Promise<void>((resolve) => accepted(t.id).resolve(resolve)),
    unregisterTrigger() {},
  });
  const ask = (id: string) =>
    handle({
      type: "registertrigger",
      id,
      trigger_type: "ticker",
      function_id: "a::b",
      config: {},
    });
  inbound.opened();
  ask("t-1");
  const acceptFirst = await accepted("t-1").promise;
  inbound.opened(); // a new connection: the engine asks again on it
  ask("t-2");
  const acceptSecond = await accepted("t-2").promise;
  const answered = nextSend();
  acceptFirst();
  acceptSecond(); // its answer comes after the first one's was decided
  await answered;
  assert.deepEqual(sent.map((f) => [f.type, f.id]), [["triggerregistrationresult", "t-2"]]);
});

Deno.test("Inbound keeps the worker id and reattach token the engine gives", () => {
  const cases: [Record<string, unknown>, string | undefined, string | undefined][] = [
    [{ worker_id: "w-1", reattach_token: "tok" }, "w-1", "tok"],
    [{ worker_id: "w-2" }, "w-2", undefined],
    [{ worker_id: 5, reattach_token: 7 }, "w-2", undefined], // a non-string id keeps the last
  ];
  const { inbound, handle } = setup();
  for (const [frame, id, token] of cases) {
    handle({ type: "workerregistered", ...frame });
    assert.deepEqual([inbound.workerId, inbound.reattachToken], [id, token], JSON.stringify(frame));
  }
});

import assert from "node:assert/strict";
import { type Invocation, Invocations } from "./invocations.ts";

function call(id: string, timeoutMs: number, target = "w1"): Invocation {
  return {
    id,
    functionId: "a::b",
    target,
    caller: undefined,
    start: Date.now(),
    timeoutMs,
    deadline: performance.now() + timeoutMs,
    traceId: "t",
    spanId: "s",
    parentSpanId: undefined,
    traced: false,
    settle: () => {},
  };
}

Deno.test("Invocations expires calls of mixed time-outs in deadline order, with one timer", async () => {
  const expired: string[] = [];
  const { promise: allExpired, resolve } = Promise.withResolvers<void>();
  const invocations = new Invocations((inv) => {
    invocations.take(inv.id);
    expired.push(inv.id);
    if (expired.length === 3) resolve();
  });
  invocations.add(call("slow", 60));
  invocations.add(call("fast", 5));
  invocations.add(call("answered", 10));
  invocations.add(call("middle", 30));
  invocations.add(call("middle-2", 30));
  assert.equal(invocations.take("answered")?.id, "answered");
  await allExpired;
  assert.deepEqual(expired, ["fast", "middle", "middle-2"]);
  assert.equal(invocations.size, 1);
  assert.equal(invocations.take("slow")?.id, "slow", "the last call ended before its deadline");
  assert.equal(invocations.size, 0);
});

Deno.test("Invocations holds the process open while calls are in flight, not once they ended", async () => {
  // A child makes a call with a 10-minute time-out; it exits by itself only if
  // the deadline timer, still armed, no longer holds the process once the call ended.
  const script = `
    import { Invocations } from ${
    JSON.stringify(new URL("./invocations.ts", import.meta.url).href)
  };
    const invocations = new Invocations(() => console.log("expired"));
    const inv = { id: "a", functionId: "a::b", target: "w", caller: undefined, start: 0,
      timeoutMs: 600000, deadline: performance.now() + 600000, traceId: "t", spanId: "s",
      parentSpanId: undefined, traced: false, settle() {} };
    invocations.add(inv);
    setTimeout(() => { invocations.take("a"); console.log("answered"); }, 10);
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000), // killed (and failing) if held open
  }).output();
  assert.equal(new TextDecoder().decode(out.stderr), "");
  assert.equal(out.code, 0);
  assert.equal(new TextDecoder().decode(out.stdout), "answered\n");
});

Deno.test("Invocations keeps per-target counts and forgets a call once taken", () => {
  const invocations = new Invocations();
  invocations.add(call("a", 1000, "w1"));
  invocations.add(call("b", 1000, "w1"));
  invocations.add(call("c", 1000, "w2"));
  assert.equal(invocations.inFlight("w1"), 2);
  assert.deepEqual(invocations.ofTarget("w2"), ["c"]);
  assert.equal(invocations.take("a")?.id, "a");
  assert.equal(invocations.take("a"), undefined, "a call ends once");
  assert.equal(invocations.inFlight("w1"), 1);
  assert.equal(invocations.take("c", "w1"), undefined, "only the worker running it ends it");
  assert.equal(invocations.inFlight("w2"), 1);
  assert.equal(invocations.take("c", "w2")?.id, "c");
  for (const id of invocations.ids()) invocations.take(id);
  assert.equal(invocations.size, 0);
});

Deno.test("Invocations.retarget() moves a call to another worker: its count and its result go there", () => {
  const invocations = new Invocations();
  const c = call("c", 1000, "w1");
  invocations.add(c);
  invocations.retarget(c, "w2");
  assert.equal(invocations.inFlight("w1"), 0);
  assert.equal(invocations.inFlight("w2"), 1);
  assert.deepEqual(invocations.ofTarget("w2"), ["c"]);
  assert.equal(invocations.take("c", "w1"), undefined, "the old target's result is not taken");
  assert.equal(invocations.take("c", "w2")?.id, "c");
  assert.equal(invocations.size, 0);
});

import assert from "node:assert/strict";
import { registerWorker } from "./mod.ts";
import { BATCH_PROTOCOL } from "./batch.ts";
import { ScriptedEngine } from "./_testing/engine_peer.ts";
import { FAST } from "./_testing/with_worker.ts";

Deno.test("a worker offers engine.batch.v1 and, once chosen, reads and sends several frames per message", async () => {
  const engine = new ScriptedEngine({ batch: true });
  const worker = registerWorker(engine.url, FAST);
  worker.registerFunction("t::square", (n: number) => n * n);
  try {
    const conn = await engine.connection(0);
    await worker.ready();
    assert.equal(conn.headers["sec-websocket-protocol"], BATCH_PROTOCOL);
    const before = conn.messages.length;
    conn.sendBatch([1, 2, 3].map((n) => ({
      type: "invokefunction",
      invocation_id: `i${n}`,
      function_id: "t::square",
      data: n,
    })));
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        conn.waitFor((f) => f.type === "invocationresult" && f.invocation_id === `i${n}`)
      ),
    );
    assert.deepEqual(results.map((r) => r.result), [1, 4, 9]);
    const carrying = conn.messages.slice(before).filter((m) => m.includes("invocationresult"));
    assert.equal(carrying.length, 1, `one message for the three results: ${carrying.join(" | ")}`);
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("a worker skips blank lines of a batch (CRLF-joined frames, spaces) and reports a bad one", async () => {
  const engine = new ScriptedEngine({ batch: true });
  const worker = registerWorker(engine.url, FAST);
  worker.registerFunction("t::square", (n: number) => n * n);
  const reported: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => reported.push(args);
  try {
    const conn = await engine.connection(0);
    await worker.ready();
    const call = (n: number) =>
      JSON.stringify({
        type: "invokefunction",
        invocation_id: `i${n}`,
        function_id: "t::square",
        data: n,
      });
    conn.sendText([call(1), "", " \t", "{not json", call(2)].join("\r\n") + "\r\n");
    const last = await conn.waitFor((f) =>
      f.type === "invocationresult" && f.invocation_id === "i2"
    );
    assert.equal(last.result, 4);
    assert.deepEqual(reported.map((args) => args[0]), [
      "[engine-sdk] Failed to parse incoming message",
    ], "only the bad line is reported");
  } finally {
    console.error = original;
    await worker.shutdown();
    await engine.close();
  }
});

Deno.test("a worker told batchFrames: false offers no subprotocol", async () => {
  const engine = new ScriptedEngine({ batch: true });
  const worker = registerWorker(engine.url, { ...FAST, batchFrames: false });
  try {
    const conn = await engine.connection(0);
    await worker.ready();
    assert.equal(conn.headers["sec-websocket-protocol"], undefined);
    const result = await conn.invoke("engine::nothing", 1);
    assert.equal((result.error as { code: string }).code, "function_not_found");
  } finally {
    await worker.shutdown();
    await engine.close();
  }
});

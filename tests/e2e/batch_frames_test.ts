/**
 * The `engine.batch.v1` subprotocol on both servers: chosen only when offered,
 * several frames per message both ways, frames of clients that do not speak
 * it passed on safely, a bad frame in a batch refused alone, and the end of a
 * connection taking effect after the frames that came before it.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { BatchSocket, type Frame } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

const invoke = (id: string, data: unknown, fn = "t::echo") => ({
  type: "invokefunction",
  invocation_id: id,
  function_id: fn,
  data,
});

/** The result frame answering `call` with its own data. */
const echoed = (call: Frame) => ({
  type: "invocationresult",
  invocation_id: call.invocation_id,
  function_id: call.function_id,
  result: call.data,
});

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] engine.batch.v1 is chosen only when offered; frames travel together both ways`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const sockets: BatchSocket[] = [];
    try {
      const provider = await BatchSocket.open(engine.url, ["other", BATCH_PROTOCOL]);
      sockets.push(provider);
      assert.equal(provider.socket.protocol, BATCH_PROTOCOL);
      const other = await BatchSocket.open(engine.url, ["other"]);
      sockets.push(other);
      assert.equal(other.socket.protocol, "", "an unknown subprotocol is not chosen");

      provider.send({ type: "registerfunction", id: "t::echo" });
      const caller = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      sockets.push(caller);
      const raw = await RawWorker.connect(engine.url);
      try {
        await waitForFunctions(raw, ["t::echo"]);
      } finally {
        await raw.close();
      }

      // Five calls in one message reach the provider in fewer messages than frames.
      const ids = ["c0", "c1", "c2", "c3", "c4"];
      const before = provider.messages.length;
      caller.send(...ids.map((id, i) => invoke(id, { i })));
      const calls = await Promise.all(
        ids.map((_, i) =>
          provider.next((f) => f.type === "invokefunction" && f.data?.i === i, `call ${i}`)
        ),
      );
      const carrying = provider.messages.slice(before).filter((m) => m.includes("invokefunction"));
      assert.ok(
        carrying.length < ids.length,
        `${carrying.length} messages for ${ids.length} calls`,
      );

      // Their results in one message, back to the caller in order of the caller's ids.
      provider.send(...calls.map(echoed));
      for (const [i, id] of ids.entries()) {
        const result = await caller.next((f) => f.invocation_id === id, `result ${id}`);
        assert.deepEqual(result.result, { i });
      }
    } finally {
      for (const s of sockets) await s.close();
      await engine.stop();
    }
  });

  Deno.test(`[${transport}] a batch peer gets pretty-printed frames of other clients on one line, and a bad frame in a batch is refused alone`, async () => {
    const engine = await startEngine({
      port: 0,
      shutdownGraceMs: 0,
      transport,
      maxFrameBytes: 4096,
    });
    let provider: BatchSocket | undefined;
    let caller: RawWorker | undefined;
    try {
      provider = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      provider.send({ type: "registerfunction", id: "t::echo" });
      caller = await RawWorker.connect(engine.url);
      await waitForFunctions(caller, ["t::echo"]);

      // A client without the subprotocol sends a frame with line feeds between its tokens.
      const data = { text: "line\nbreak", list: [1, 2] };
      const pretty = JSON.stringify(invoke("p1", data), null, 2);
      assert.ok(pretty.includes("\n"));
      const answer = caller.next((f) => f.type === "invocationresult" && f.invocation_id === "p1");
      caller.send(pretty);
      const call = await provider.next((f) => f.type === "invokefunction");
      assert.deepEqual(call.data, data);
      provider.send({
        type: "invocationresult",
        invocation_id: call.invocation_id,
        function_id: "t::echo",
        result: call.data,
      });
      assert.deepEqual((await answer).result, data);

      // In one message: an unknown frame type, a frame over max_frame_bytes, a good call.
      provider.send(
        { type: "nonsense" },
        invoke("big", "x".repeat(5000)),
        invoke("ok", 7),
      );
      const errors = [
        await provider.next((f) => f.type === "error" && /nonsense/.test(f.error.message)),
        await provider.next((f) => f.type === "error" && f.error.code === "frame_too_large"),
      ];
      assert.equal(errors.length, 2);
      const tooBig = await provider.next((f) => f.invocation_id === "big");
      assert.equal(tooBig.error.code, "frame_too_large");
      const ok = await provider.next((f) => f.type === "invokefunction" && f.data === 7);
      assert.equal(ok.function_id, "t::echo");

      // Lines of whitespace only (CRLF-joined frames with an empty line between, spaces) are
      // skipped without a word; the pong comes after anything they would have caused.
      const seen = provider.frames.length;
      provider.socket.send(["", "  \t", '{"type":"ping"}', " "].join("\r\n") + "\r\n");
      await provider.next((f) => f.type === "pong");
      assert.deepEqual(provider.frames.slice(seen).map((f) => f.type), ["pong"]);
    } finally {
      await caller?.close();
      await provider?.close();
      await engine.stop();
    }
  });

  Deno.test(`[${transport}] results sent just before a worker goes away reach their callers`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    let caller: BatchSocket | undefined;
    try {
      const provider = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      provider.send({ type: "registerfunction", id: "t::echo" });
      caller = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      const raw = await RawWorker.connect(engine.url);
      await waitForFunctions(raw, ["t::echo"]);
      await raw.close();
      // More calls than the engine hands on in one turn, so some results wait for a later turn.
      const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
      caller.send(...ids.map((id, i) => invoke(id, i)));
      await provider.next(
        () => provider.frames.filter((f) => f.type === "invokefunction").length === ids.length,
        "all 40 calls",
      );
      const calls = provider.frames.filter((f) => f.type === "invokefunction");
      provider.send(...calls.map(echoed));
      provider.socket.close();
      for (const [i, id] of ids.entries()) {
        const result = await caller.next((f) => f.invocation_id === id, `result ${id}`);
        assert.equal(result.error, undefined, `${id}: ${JSON.stringify(result.error)}`);
        assert.equal(result.result, i);
      }
    } finally {
      await caller?.close();
      await engine.stop();
    }
  });
}

Deno.test("TypeScript SDK workers with and without batching call each other through the engine", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const batched = registerWorker(engine.url, { worker_name: "batched" });
  const single = registerWorker(engine.url, { worker_name: "single", batchFrames: false });
  const raw = await RawWorker.connect(engine.url);
  try {
    await Promise.all([batched.ready(), single.ready()]);
    batched.registerFunction("t::double", (n: number) => n * 2);
    single.registerFunction("t::triple", (n: number) => n * 3);
    await waitForFunctions(raw, ["t::double", "t::triple"]);
    const range = Array.from({ length: 20 }, (_, i) => i);
    const doubled = await Promise.all(
      range.map((i) => single.trigger({ function_id: "t::double", payload: i })),
    );
    assert.deepEqual(doubled, range.map((i) => i * 2));
    const tripled = await Promise.all(
      range.map((i) => batched.trigger({ function_id: "t::triple", payload: i })),
    );
    assert.deepEqual(tripled, range.map((i) => i * 3));
  } finally {
    await raw.close();
    await batched.shutdown();
    await single.shutdown();
    await engine.stop();
  }
});

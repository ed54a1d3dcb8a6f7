/**
 * The engine's frame pacer and `engine.batch.v1` against careless and hostile
 * clients: frames that wait for a turn keep their bytes, and one flooding
 * connection does not hold up the others.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { BatchSocket } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

const encoder = new TextEncoder();
const pings = (n: number) => Array.from({ length: n }, () => ({ type: "ping" }));
const listCall = (id: string) => ({
  type: "invokefunction",
  invocation_id: id,
  function_id: "engine::functions::list",
  data: {},
});

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] binary frames that wait behind others for a turn arrive intact`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    let worker: BatchSocket | undefined;
    try {
      worker = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      // Many frames ahead of the binary ones (blank lines: a turn each, and no answer): they
      // wait for their turns while the messages after them are read (into the native server's
      // buffer, which it reuses).
      const ids = ["t::binary_a", "t::binary_b", "t::binary_c"];
      for (const id of ids) {
        worker.send(...Array(100_000).fill(" "));
        worker.socket.send(encoder.encode(JSON.stringify({ type: "registerfunction", id })));
      }
      worker.send(...Array(100_000).fill(" "));
      // Frames of one connection are handled in order: this list comes after all of them.
      worker.send(listCall("last"));
      const list = await worker.next((f) => f.invocation_id === "last", "the function list");
      const have = list.result.functions.map((f: { function_id: string }) => f.function_id);
      assert.deepEqual(ids.filter((id) => !have.includes(id)), [], "every function registered");
      const errors = worker.frames.filter((f) => f.type === "error");
      assert.deepEqual(errors, [], "no frame was refused");
    } finally {
      await worker?.close();
      await engine.stop();
    }
  });

  Deno.test(`[${transport}] a connection that floods the engine with frames does not hold up the others`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const sockets: BatchSocket[] = [];
    try {
      const flooder = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      sockets.push(flooder);
      const quiet = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      sockets.push(quiet);
      // A ping first: its pong says the flood has been read and the engine works through it.
      // The flood's last frame registers a function: the list the quiet connection asks for
      // says how far the engine had got with the flood when it handled the question.
      // In messages of 10,000 frames, within the engine's limit for one message (MAX_BATCH_UNITS).
      flooder.send({ type: "ping" }, ...pings(9_999));
      for (let i = 0; i < 8; i++) flooder.send(...pings(10_000));
      flooder.send(...pings(10_001), { type: "registerfunction", id: "t::flood_done" });
      await flooder.next((f) => f.type === "pong", "the first pong of the flood");
      quiet.send(listCall("quiet"));
      const list = await quiet.next((f) => f.invocation_id === "quiet", "the answer");
      const have = list.result.functions.map((f: { function_id: string }) => f.function_id);
      assert.ok(!have.includes("t::flood_done"), "answered before the whole flood was handled");
      // workerregistered and 100001 pongs: the flood is through.
      await flooder.next(() => flooder.frames.length === 100_002, "the rest of the flood");
    } finally {
      for (const s of sockets) await s.close();
      await engine.stop();
    }
  });
}

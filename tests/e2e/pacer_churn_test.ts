/**
 * Connections that end while their frames still wait in the engine's frame
 * pacer: nothing they sent is left registered under a worker that is gone.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { LANE_FRAMES } from "../../engine/transport/pacer.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { BatchSocket, type Frame } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

const call = (id: string, functionId: string): Frame => ({
  type: "invokefunction",
  invocation_id: id,
  function_id: functionId,
  data: {},
});

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] frames of a connection replaced by a reattach register nothing`, async () => {
    const { dir, file } = await tempConfig(
      "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers: []\n",
    );
    // A process of its own: the frames wait in its pacer while this process sends the reattach.
    const engine = await spawnEngine({ config: file, env: { ENGINE_TRANSPORT: transport } });
    const sockets: BatchSocket[] = [];
    try {
      const old = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      const next = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      const floods = await Promise.all(
        Array.from({ length: 8 }, () => BatchSocket.open(engine.url, [BATCH_PROTOCOL])),
      );
      sockets.push(old, next, ...floods);
      const hello = await old.next((f) => f.type === "workerregistered");
      const oldClosed = new Promise((resolve) => old.socket.addEventListener("close", resolve));
      // Other connections' frames fill the pacer: the old connection's lane drains slowly.
      for (const flood of floods) flood.send(...Array(LANE_FRAMES).fill(" "));
      // More registrations than a lane holds: the last of them wait for their turns while the
      // reattach of the next connection is read and handled. The pong says they are waiting.
      const frames: Frame[] = [{ type: "ping" }];
      for (let i = 0; i < 2 * LANE_FRAMES; i++) {
        frames.push(
          i % 8 === 0
            ? {
              type: "registertrigger",
              id: `churn-${i}`,
              trigger_type: "churn::nobody",
              function_id: "churn::f",
              config: {},
            }
            : { type: "registertriggertype", id: `churn::type-${i}`, description: "churn" },
        );
      }
      old.send(...frames);
      await old.next((f) => f.type === "pong");
      next.send({
        type: "reattach",
        previous_worker_id: hello.worker_id,
        reattach_token: hello.reattach_token,
      });
      await oldClosed;
      // Lanes take turns a frame each and hold at most LANE_FRAMES: once this many frames of the
      // next connection have gone, every frame the old one sent has been handled.
      next.send(...Array(2 * LANE_FRAMES).fill(" "), call("triggers", "engine::triggers::list"));
      next.send(call("registered", "engine::registered-triggers::list"));
      const types = (await next.next((f) => f.invocation_id === "triggers")).result.triggers;
      const registered = (await next.next((f) => f.invocation_id === "registered")).result
        .registered_triggers;
      const left = [
        ...types.map((t: Frame) => t.id),
        ...registered.map((t: Frame) => t.id),
      ].filter((id: string) => id.startsWith("churn"));
      assert.deepEqual(left.slice(0, 5), [], `${left.length} left of the old connection`);
    } finally {
      for (const s of sockets) await s.close();
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

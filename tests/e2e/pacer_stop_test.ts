/**
 * The engine stopping while frames still wait in its frame pacer: what waits
 * when the shutdown closes a connection is dropped, not handled against an
 * engine that has already stopped its calls; every call it did start was
 * answered while its caller could still hear it.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { framePacer, LANE_FRAMES } from "../../engine/transport/pacer.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { BatchSocket, type Frame } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] frames still waiting when the engine stops are dropped, not run for no one`, async () => {
    const engine = await startEngine({ port: 0, transport, shutdownGraceMs: 0 });
    const caller = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
    const closed = new Promise((resolve) => caller.socket.addEventListener("close", resolve));
    let stopped: Promise<void> | undefined;
    const stop = () => stopped ??= engine.stop();
    try {
      // Calls with a lasting effect (a log entry each): more than a lane holds, in one message.
      const frames: Frame[] = [];
      for (let i = 0; i < 2 * LANE_FRAMES; i++) {
        frames.push({
          type: "invokefunction",
          invocation_id: `c${i}`,
          function_id: "engine::log::info",
          data: { message: `pacer-stop c${i}` },
        });
      }
      caller.send(...frames);
      await caller.next((f) => f.invocation_id === "c0");
      assert.ok(framePacer.waiting > 0, "frames wait in the pacer when the engine stops");
      await stop();
      // Frames handed on after this find no worker: nothing of them runs any more.
      const waitedAtStop = framePacer.waiting;
      await closed;
      const ran = engine.logs.query({ limit: 10 * LANE_FRAMES })
        .filter((e) => e.message.startsWith("pacer-stop "))
        .map((e) => e.message.slice("pacer-stop ".length));
      const answered = new Set(
        caller.frames.filter((f) => f.type === "invocationresult").map((f) => f.invocation_id),
      );
      // Before the fix, the native server's shutdown (it waits for its sockets' ends) ran hundreds.
      assert.deepEqual(ran.filter((id) => !answered.has(id)), [], "calls run with no answer");
      assert.ok(ran.length < frames.length, `some calls waited at the stop (${waitedAtStop} left)`);
    } finally {
      await caller.close();
      await stop();
    }
  });
}

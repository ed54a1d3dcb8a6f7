/**
 * A TypeScript SDK worker with a small `maxMessageSize` against the real
 * engine on both transports: calls whose frames are each well within its
 * limit are answered when many come at once. With `engine.batch.v1` the
 * engine would put several of them in one message, larger than the limit,
 * and the worker would fail its connection (1009) and every call in flight.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const LIMIT = 32 * 1024;

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] a worker with a maxMessageSize below a batch gets many calls at once, each within it`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const small = registerWorker(engine.url, { worker_name: "small", maxMessageSize: LIMIT });
    const caller = registerWorker(engine.url, { worker_name: "caller" });
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args.join(" "));
    try {
      small.registerFunction("small::size", (d: { pad: string }) => d.pad.length);
      await Promise.all([small.ready(), caller.ready()]);
      const raw = await RawWorker.connect(engine.url);
      try {
        await waitForFunctions(raw, ["small::size"]);
      } finally {
        await raw.close();
      }
      // 5 KB a call: eight of them (as many as the engine hands on in one turn) exceed the limit.
      const pads = Array.from({ length: 64 }, (_, i) => "p".repeat(5_000 + i));
      const sizes = await Promise.all(
        pads.map((pad) => caller.trigger({ function_id: "small::size", payload: { pad } })),
      );
      assert.deepEqual(sizes, pads.map((pad) => pad.length));
      assert.deepEqual(warnings, [], "no disconnection");
    } finally {
      console.warn = warn;
      await small.shutdown();
      await caller.shutdown();
      await engine.stop();
    }
  });
}

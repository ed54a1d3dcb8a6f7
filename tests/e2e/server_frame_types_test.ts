/**
 * A frame whose `type` names a member every object has (`constructor`,
 * `toString`, `__proto__`, …) is an unknown frame type like any other: the
 * sender gets `unknown_frame_type` and keeps its connection. The frame
 * parser looked the type up in a plain object, found Object.prototype's
 * member and called `.safeParse` on it: a TypeError thrown in the socket's
 * message handler, which ended the whole engine process (one frame from
 * any worker stopped every worker's engine).
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { RawWorker } from "../support/raw_worker.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const TYPES = [
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__proto__",
  "__defineGetter__",
  "isPrototypeOf",
];

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] a frame type named like an Object member is unknown, and the engine stays up`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const worker = await RawWorker.connect(engine.url);
    try {
      for (const type of TYPES) {
        const answer = worker.next((f) => f.type === "error");
        worker.send({ type });
        const { error } = await answer;
        assert.equal(error.code, "unknown_frame_type", type);
        assert.match(error.message, new RegExp(`"${type}" is not part of the protocol`));
      }
      const health = await worker.call("engine::health", {});
      assert.equal(health.type, "invocationresult");
    } finally {
      await worker.close();
      await engine.stop();
    }
  });
}

/**
 * A message of several frames (`engine.batch.v1`) is bounded: over
 * MAX_BATCH_UNITS it is refused whole with an error that names the limit,
 * instead of being handled in one go while every other connection waits; the
 * connection stays open, and a message within the limit is handled in full.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL, MAX_BATCH_UNITS } from "../../sdk/typescript/batch.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { BatchSocket } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

/** `count` registerfunction frames `<prefix>::f<i>`, padded so the message has `units` characters. */
function registrations(prefix: string, count: number, units: number): string[] {
  const frames = Array.from(
    { length: count },
    (_, i) => JSON.stringify({ type: "registerfunction", id: `${prefix}::f${i}` }),
  );
  const used = frames.reduce((n, f) => n + f.length + 1, -1);
  const pad = units - used - 1 - '{"type":"registerfunction","id":"","description":""}'.length -
    `${prefix}::pad`.length;
  frames.push(
    JSON.stringify({
      type: "registerfunction",
      id: `${prefix}::pad`,
      description: "d".repeat(pad),
    }),
  );
  return frames;
}

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] a message of several frames over MAX_BATCH_UNITS is refused whole; one within it is handled`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    let batch: BatchSocket | undefined;
    let observer: RawWorker | undefined;
    try {
      batch = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      observer = await RawWorker.connect(engine.url);

      const over = registrations("over", 50, MAX_BATCH_UNITS + 1);
      assert.equal(over.join("\n").length, MAX_BATCH_UNITS + 1);
      batch.send(...over);
      const refusal = await batch.next((f) => f.type === "error");
      assert.equal(refusal.error.code, "frame_too_large");
      assert.match(refusal.error.message, new RegExp(`${MAX_BATCH_UNITS + 1} characters holds 51`));
      assert.match(refusal.error.message, new RegExp(`${MAX_BATCH_UNITS}-character limit`));

      // The same connection goes on: a message of exactly the limit is handled, every frame.
      const within = registrations("within", 50, MAX_BATCH_UNITS);
      assert.equal(within.join("\n").length, MAX_BATCH_UNITS);
      batch.send(...within);
      const ids = [...Array.from({ length: 50 }, (_, i) => `within::f${i}`), "within::pad"];
      await waitForFunctions(observer, ids);
      const listed = [...engine.engine.functions.entries()].map(([id]) => id);
      assert.deepEqual(listed.filter((id) => id.startsWith("over::")), []);
      assert.equal(listed.filter((id) => id.startsWith("within::")).length, 51);
      assert.equal(batch.frames.filter((f) => f.type === "error").length, 1);

      // One frame over the limit with blank lines around it is one frame, not a batch.
      const single = JSON.stringify({
        type: "registerfunction",
        id: "single::big",
        description: "d".repeat(MAX_BATCH_UNITS),
      });
      batch.socket.send(`\r\n${single}\n\n`);
      await waitForFunctions(observer, ["single::big"]);
      assert.equal(batch.frames.filter((f) => f.type === "error").length, 1);
    } finally {
      await batch?.close();
      await observer?.close();
      await engine.stop();
    }
  });
}

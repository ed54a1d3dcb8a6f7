/**
 * A payload with integers beyond 2^53 enqueued by a worker on the wire
 * reaches the consumer digit for digit: it is stored as written and read
 * back without rounding (9007199254740993 delivered as …992 before).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startEngine } from "../../engine/engine.ts";
import { queueWorker } from "./mod.ts";

for (const adapter of ["sqlite", "memory"] as const) {
  Deno.test(`[${adapter}] an enqueued payload keeps its integers beyond 2^53 exact`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "queue-exact-" });
    const config = queueWorker.parseConfig(
      adapter === "sqlite" ? { path: join(dir, "queue.db") } : { adapter: "memory" },
    );
    const engine = await startEngine({ port: 0, builtins: [{ worker: queueWorker, config }] });
    const socket = new WebSocket(engine.url);
    try {
      const texts: string[] = [];
      let delivered!: (text: string) => void;
      const delivery = new Promise<string>((resolve) => delivered = resolve);
      let receipt!: (text: string) => void;
      const receipted = new Promise<string>((resolve) => receipt = resolve);
      socket.onmessage = (e) => {
        const text = String(e.data);
        texts.push(text);
        const call = /"type":"invokefunction","invocation_id":"([^"]+)"/.exec(text);
        if (call && text.includes('"function_id":"exact::consume"')) {
          delivered(text);
          socket.send(
            `{"type":"invocationresult","invocation_id":"${
              call[1]
            }","function_id":"exact::consume","result":null}`,
          );
        }
        if (text.includes('"invocation_id":"enq"')) receipt(text);
      };
      await new Promise((resolve) => socket.onopen = resolve);
      socket.send('{"type":"registerfunction","id":"exact::consume"}');
      const payload = '{"id":12345678901234567890,"ns":-9007199254740993,"n":1}';
      socket.send(
        `{"type":"invokefunction","invocation_id":"enq","function_id":"exact::consume","data":${payload},"action":{"type":"enqueue","queue":"exact"}}`,
      );
      assert.doesNotMatch(await receipted, /"error"/);
      const text = await delivery;
      assert.match(text, /"id":12345678901234567890/, text);
      assert.match(text, /"ns":-9007199254740993/, text);
    } finally {
      const closed = new Promise((resolve) => socket.onclose = resolve);
      socket.close();
      await closed;
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

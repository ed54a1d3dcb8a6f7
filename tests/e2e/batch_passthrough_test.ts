/**
 * Texts the engine passes on as they came (a call's `data`, a result's
 * `result`) reach a peer of `engine.batch.v1` on one line, whatever line
 * feeds the client that wrote them put between its tokens: the engine's
 * batcher trusts them to hold none (it turns them into spaces on receipt),
 * so a frame that kept one would reach a batch peer as two broken lines.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { BatchSocket } from "../support/batch_socket.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

/** What the provider answers for call `i`: line feeds escaped in strings, non-ASCII text. */
const answer = (i: number) => ({
  i,
  text: "line\nbreak, café 😀",
  nested: { list: [1, "\\n", { deep: "é\r\n" }] },
});

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] results laid out over several lines by a client without engine.batch.v1 reach a batch caller intact`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    let provider: RawWorker | undefined;
    let caller: BatchSocket | undefined;
    try {
      provider = await RawWorker.connect(engine.url);
      const raw = provider;
      raw.send({ type: "registerfunction", id: "t::laid_out" });
      raw.socket.addEventListener("message", (e) => {
        const call = JSON.parse(e.data);
        if (call.type !== "invokefunction" || call.function_id !== "t::laid_out") return;
        // Pretty-printed, and with CRLF between tokens too: line feeds only where JSON allows.
        const frame = {
          type: "invocationresult",
          invocation_id: call.invocation_id,
          function_id: call.function_id,
          result: answer(call.data.i),
        };
        const text = call.data.i % 2 === 0
          ? JSON.stringify(frame, null, 2)
          : JSON.stringify(frame, null, "\r\n");
        assert.ok(text.includes("\n"));
        raw.send(text);
      });
      caller = await BatchSocket.open(engine.url, [BATCH_PROTOCOL]);
      await waitForFunctions(provider, ["t::laid_out"]);

      // Several calls in one message: their results come back close together, some batched.
      const ids = Array.from({ length: 12 }, (_, i) => i);
      caller.send(...ids.map((i) => ({
        type: "invokefunction",
        invocation_id: `c${i}`,
        function_id: "t::laid_out",
        data: { i },
      })));
      for (const i of ids) {
        const result = await caller.next((f) => f.invocation_id === `c${i}`, `result c${i}`);
        assert.equal(result.error, undefined, JSON.stringify(result.error));
        assert.deepEqual(result.result, answer(i));
      }
      assert.deepEqual(caller.broken, [], "every line of every message was a whole frame");
    } finally {
      await caller?.close();
      await provider?.close();
      await engine.stop();
    }
  });
}

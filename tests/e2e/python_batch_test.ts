/**
 * The Python SDK and `engine.batch.v1` against a real engine on both transports:
 * a Python worker (a real python3 process) and a TypeScript SDK worker call
 * each other, many calls at once, with the subprotocol chosen and without it.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { ROOT } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";

const CASES: { transport: TransportName; pyBatch: boolean; tsBatch: boolean }[] = [
  { transport: "deno", pyBatch: true, tsBatch: true },
  { transport: "native", pyBatch: true, tsBatch: true },
  { transport: "deno", pyBatch: false, tsBatch: true },
  { transport: "native", pyBatch: true, tsBatch: false },
];

const range = Array.from({ length: 20 }, (_, i) => i);

for (const { transport, pyBatch, tsBatch } of CASES) {
  const name = `[${transport}] a Python worker (batch_frames=${pyBatch ? "True" : "False"}) and ` +
    `a TypeScript worker (batchFrames: ${tsBatch}) call each other through the engine`;
  Deno.test(name, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const ts = registerWorker(engine.url, { worker_name: "ts-batch", batchFrames: tsBatch });
    const raw = await RawWorker.connect(engine.url);
    let python: Awaited<ReturnType<typeof spawnWorker>> | undefined;
    try {
      ts.registerFunction("ts::triple", (n: number) => n * 3);
      python = await spawnWorker("", {
        ENGINE_URL: engine.url,
        BATCH: pyBatch ? "1" : "0",
        PYTHONPATH: `${ROOT}sdk/python`,
        PYTHONDONTWRITEBYTECODE: "1",
      }, {
        cmd: "python3",
        args: ["-u", `${ROOT}tests/fixtures/core/py_batch_worker.py`],
        ready: /^ready \S+$/m,
      });
      const chosen = /^ready (\S+)$/m.exec(python.output.join(""))?.[1];
      assert.equal(
        chosen,
        pyBatch ? BATCH_PROTOCOL : "-",
        "the subprotocol the Python worker speaks",
      );
      await ts.ready();
      await waitForFunctions(raw, [
        "ts::triple",
        "py::square",
        "py::call_many",
        "py::register_and_call",
      ]);

      // TypeScript calls Python, twenty calls at once.
      const squares = await Promise.all(
        range.map((n) => ts.trigger({ function_id: "py::square", payload: n })),
      );
      assert.deepEqual(squares, range.map((n) => n * n));
      // Line feeds inside strings and non-ASCII text survive both ways.
      const text = { text: "line\nbreak\r\n", "é": "ü €", list: [1, { nested: "a\nb" }] };
      assert.deepEqual(await ts.trigger({ function_id: "py::echo", payload: text }), text);

      // A function registered from the event loop is known to the engine by the call that follows.
      assert.deepEqual(
        await ts.trigger({ function_id: "py::register_and_call", payload: text }),
        text,
      );

      // Python calls TypeScript: twenty calls sent from its event loop at once, then from threads.
      for (const fn of ["py::call_many", "py::call_many_from_threads"]) {
        const tripled = await ts.trigger({
          function_id: fn,
          payload: { function_id: "ts::triple", inputs: range },
        });
        assert.deepEqual(tripled, range.map((n) => n * 3), fn);
      }

      const status = await python.stop();
      const output = python.output.join("");
      assert.equal(status.code, 0, output);
      assert.doesNotMatch(output, /Traceback|Error/);
    } finally {
      await python?.stop();
      await raw.close();
      await ts.shutdown();
      await engine.stop();
    }
  });
}

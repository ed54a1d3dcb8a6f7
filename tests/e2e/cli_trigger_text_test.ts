/**
 * `engine trigger` passes the payload on as written and prints the result as
 * the worker wrote it: numbers JSON.parse would round (beyond 2^53, beyond
 * a double's range, trailing zeros) reach the function and come back whole.
 */
import assert from "node:assert/strict";
import { memberText } from "../../engine/protocol/member_text.ts";
import { main } from "../../cli/main.ts";
import { withEngine } from "../support/in_process_engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

Deno.test("engine trigger sends the payload and prints the result without rounding numbers", () =>
  withEngine(async (url) => {
    const worker = await RawWorker.connect(url);
    try {
      const received: string[] = [];
      // Answers with the payload's own text, untouched.
      worker.socket.addEventListener("message", (e) => {
        const text = String(e.data);
        const frame = JSON.parse(text);
        if (frame.type !== "invokefunction") return;
        const data = memberText(text, "data")!;
        received.push(data);
        worker.send(
          `{"type":"invocationresult","invocation_id":${JSON.stringify(frame.invocation_id)},` +
            `"function_id":"text::echo","result":{"echo":${data}}}`,
        );
      });
      worker.send({ type: "registerfunction", id: "text::echo" });
      await waitForFunctions(worker, ["text::echo"]);
      const payload = '{"id":12345678901234567890,"huge":1e400,"price":1.50}';
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(
        ["trigger", "--function-id=text::echo", `--payload=${payload}`, `--url=${url}`],
        { out: (line) => out.push(line), err: (line) => err.push(line) },
      );
      assert.equal(code, 0, err.join("\n"));
      assert.deepEqual(received, [payload]);
      assert.equal(
        out.join("\n"),
        '{\n  "echo": {\n    "id": 12345678901234567890,\n    "huge": 1e400,\n    "price": 1.50\n  }\n}',
      );
    } finally {
      await worker.close();
    }
  }));

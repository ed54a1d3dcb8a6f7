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

      // A payload larger than one argument may be (128 KiB on Linux) comes from a file.
      const dir = await Deno.makeTempDir();
      try {
        const big = JSON.stringify({ n: 12345678901234567890, pad: "x".repeat(300_000) })
          .replace('"n":12345678901234567000', '"n":12345678901234567890');
        await Deno.writeTextFile(`${dir}/payload.json`, `${big}\n`);
        out.length = 0;
        const fromFile = await main(
          ["trigger", "--function-id=text::echo", `--payload=@${dir}/payload.json`, `--url=${url}`],
          { out: (line) => out.push(line), err: (line) => err.push(line) },
        );
        assert.equal(fromFile, 0, err.join("\n"));
        assert.equal(received.at(-1), big);
        assert.ok(out.join("\n").includes('"n": 12345678901234567890'));

        await Deno.writeTextFile(`${dir}/bad.json`, '{"a":');
        const failures: [string, number, RegExp][] = [
          [`@${dir}/bad.json`, 2, /^Error: The payload in ".*bad\.json" is not valid JSON: /],
          [`@${dir}/missing.json`, 1, /^Error: Cannot read the payload from ".*missing\.json": /],
        ];
        for (const [payload, expected, message] of failures) {
          err.length = 0;
          const code = await main(
            ["trigger", "--function-id=text::echo", `--payload=${payload}`, `--url=${url}`],
            { out: () => {}, err: (line) => err.push(line) },
          );
          assert.equal(code, expected, payload);
          assert.match(err.join("\n"), message);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    } finally {
      await worker.close();
    }
  }));

/**
 * Integers beyond 2^53 reach a built-in function digit for digit however a
 * worker calls it: waiting for the result, fire-and-forget (no
 * `invocation_id`) or with the `void` action. The last two were parsed from
 * the frame's value alone and arrived rounded (9007199254740993 as …992).
 */

import assert from "node:assert/strict";
import { startEngine } from "./engine.ts";
import { textWorker } from "../tests/support/text_worker.ts";

const LONG = '{"id":123456789012345678901,"snowflake":9007199254740993,"small":7,"f":1.5}';

Deno.test("a built-in function gets integers beyond 2^53 exactly from waited, fire-and-forget and void calls", async () => {
  const engine = await startEngine({ port: 0 });
  const worker = await textWorker(engine.url);
  try {
    const cases: [string, (data: string) => string][] = [
      [
        "waited",
        (data) =>
          `{"type":"invokefunction","invocation_id":"w1","function_id":"engine::log::info","data":${data}}`,
      ],
      [
        "no invocation_id",
        (data) => `{"type":"invokefunction","function_id":"engine::log::info","data":${data}}`,
      ],
      [
        "void action",
        (data) =>
          `{"type":"invokefunction","invocation_id":"v1","function_id":"engine::log::info","data":${data},"action":{"type":"void"}}`,
      ],
    ];
    for (const [name, frame] of cases) {
      worker.send(frame(`{"message":"exact ${name}","data":${LONG}}`));
    }
    // The frames of a connection are handled in order, so the log calls have run before this one.
    const listed = await worker.call("engine::logs::list", '{"text":"exact "}');
    for (const [name] of cases) {
      const entry = new RegExp(`"message":"exact ${name}"[^}]*"data":(\\{[^}]*\\})`).exec(listed);
      assert.ok(entry, `no log entry for the ${name} call in ${listed}`);
      assert.equal(entry[1], LONG, name);
    }
  } finally {
    await worker.close();
    await engine.stop();
  }
});

Deno.test("a worker's function gets integers beyond 2^53 exactly from fire-and-forget and void calls", async () => {
  const engine = await startEngine({ port: 0 });
  const caller = await textWorker(engine.url);
  const callee = await textWorker(engine.url);
  try {
    callee.send('{"type":"registerfunction","id":"exact::sink"}');
    // Frames of a connection are handled in order: the function is registered once this returns.
    await callee.call("engine::health::check", "{}");
    caller.send(`{"type":"invokefunction","function_id":"exact::sink","data":${LONG}}`);
    caller.send(
      `{"type":"invokefunction","invocation_id":"v1","function_id":"exact::sink","data":${LONG},"action":{"type":"void"}}`,
    );
    // The engine answers the caller's later call after it has sent both calls on.
    await caller.call("engine::health::check", "{}");
    await callee.call("engine::health::check", "{}");
    const calls = callee.received.filter((text) => text.includes('"exact::sink"'));
    assert.equal(calls.length, 2, calls.join("\n"));
    for (const text of calls) assert.ok(text.includes(`"data":${LONG}`), text);
  } finally {
    await caller.close();
    await callee.close();
    await engine.stop();
  }
});

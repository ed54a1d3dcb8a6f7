import assert from "node:assert/strict";
import { withEngine } from "./in_process_engine.ts";
import { RawWorker } from "./raw_worker.ts";

// The waits' errors name the close, not a time-out (60 s, or call()'s 5 s): they failed at once.
// (That their timers are cleared is waiters_test.ts's business: the engine's own stop() leaves a
// timer behind, so the op sanitizer cannot be on here.)

Deno.test({
  name: "RawWorker.close() fails pending next() waits at once, and later ones too",
  fn: () =>
    withEngine(async (url) => {
      const w = await RawWorker.connect(url);
      const pending = assert.rejects(
        w.next(() => false, { description: "a frame that never comes", timeoutMs: 60_000 }),
        {
          message: "Stopped waiting for a frame that never comes: " +
            "close() closed the connection (code 1000)",
        },
      );
      await w.close();
      await pending;
      await assert.rejects(w.next(() => true, { description: "any frame", timeoutMs: 60_000 }), {
        message: "Stopped waiting for any frame: close() closed the connection (code 1000)",
      });
    }),
});

Deno.test({
  name:
    "RawWorker.next() fails at once when the engine closes the connection, with its code and reason",
  fn: () =>
    withEngine(async (url) => {
      const w = await RawWorker.connect(url);
      const pending = assert.rejects(w.call("a::b", "x".repeat(5000)), {
        message: new RegExp(
          '^Stopped waiting for the result of "a::b" \\(invocation [0-9a-f-]{36}\\): ' +
            'the connection closed \\(code 1009, reason "Frame of \\d+ bytes exceeds the ' +
            '4096-byte limit[^"]*"\\)$',
        ),
      });
      assert.equal((await w.closed).code, 1009);
      await pending;
    }, { maxFrameBytes: 4096 }),
});

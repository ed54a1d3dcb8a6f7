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
      const pending = assert.rejects(w.next((f) => f.type === "nothing", { description: "none" }), {
        message: "Stopped waiting for none: the connection closed " +
          '(code 1000, reason "replaced by a reattached connection")',
      });
      // A second connection taking over the first one's identity makes the engine close it.
      const next = await RawWorker.connect(url);
      next.send({
        type: "reattach",
        previous_worker_id: w.workerId,
        reattach_token: w.frames[0]!.reattach_token,
      });
      assert.equal((await w.closed).code, 1000);
      await pending;
      await next.close();
    }),
});

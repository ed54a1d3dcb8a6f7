import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "./engine_process.ts";

Deno.test({
  name: "spawnEngine() rejects at once when the engine exits before listening, with all it printed",
  // The op sanitizer fails the test if the wait for "Engine listening" is left running.
  sanitizeOps: true,
  fn: async () => {
    const { dir, file } = await tempConfig("port: 0\n");
    // Stands in for an engine that fails at start: prints a lot, then exits with 3.
    const entry = `${dir}/dying_engine.ts`;
    await Deno.writeTextFile(
      entry,
      [
        'for (let i = 0; i < 300; i++) console.log("starting step " + i);',
        'console.error("Cannot start the engine: the port is taken");',
        'await Deno.stderr.write(new TextEncoder().encode("last words"));',
        "Deno.exit(3);",
      ].join("\n"),
    );
    try {
      const error = await spawnEngine({ config: file, entry, timeoutMs: 60_000 }).then(
        () => assert.fail("spawnEngine() resolved"),
        (e: Error) => e,
      );
      assert.match(
        error.message,
        /^Stopped waiting for a line of the engine matching \/Engine listening on ws:\\\/\\\/\/: the engine exited with code 3; everything it printed \(302 lines\):\n/,
      );
      const shown = new Set(error.message.split("\n").slice(1).map((l) => l.trim()));
      for (let i = 0; i < 300; i++) assert.ok(shown.has(`starting step ${i}`), `step ${i} shown`);
      assert.ok(shown.has("Cannot start the engine: the port is taken"));
      assert.ok(shown.has("last words"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

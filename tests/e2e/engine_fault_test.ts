/**
 * An engine bug nobody catches (a promise rejection nobody awaits, an error
 * thrown in a timer) in a real engine process, provoked by the stand-ins of
 * tests/fixtures/faults/engine_with_bug.ts. Serving, the engine logs it as an
 * engine bug with its stack, counts it and keeps serving (Deno's default
 * ended the process and every call in flight); during start-up it stops what
 * has started and exits 1.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { holdTcp } from "../support/held_tcp.ts";

const ENTRY = fileURLToPath(
  new URL("../fixtures/faults/engine_with_bug.ts", import.meta.url),
);

Deno.test("engine --config: an uncaught rejection or error while serving is logged and counted, and the engine serves on", async () => {
  const { dir, file } = await tempConfig(
    "port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-state\n",
  );
  const engine = await spawnEngine({ config: file, cwd: dir, entry: ENTRY });
  try {
    await engine.waitForLine(/Started worker engine-state/);
    Deno.kill(engine.child.pid, "SIGUSR1");
    const first = await engine.waitForLine(/Engine bug #1/);
    assert.match(
      first,
      /ERROR .*Engine bug #1, the engine keeps serving: unhandled promise rejection: Error: Stand-in for an engine bug: a rejection nobody awaits/,
    );
    // The stack comes with it.
    await engine.waitForLine(/at .*engine_with_bug\.ts:\d+/);
    Deno.kill(engine.child.pid, "SIGUSR2");
    assert.match(
      await engine.waitForLine(/Engine bug #2/),
      /Engine bug #2, the engine keeps serving: uncaught error: Error: Stand-in for an engine bug: thrown in a timer/,
    );
    const set = await runCli([
      "trigger",
      `--url=${engine.url}`,
      "--function-id=state::set",
      '--payload={"scope":"s","key":"k","value":1}',
    ]);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(await engine.stop(), 0, engine.lines.join("\n"));
  } finally {
    await engine.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine --config: an uncaught rejection during start-up stops what has started and exits 1", async () => {
  // engine-state's start hangs on a Redis stand-in that never answers: the engine is starting.
  const redis = holdTcp();
  const { dir, file } = await tempConfig(
    [
      "port: 0",
      "console:",
      "  enabled: false",
      "workers:",
      "  - name: engine-http",
      "    config: { port: 0 }",
      "  - name: engine-state",
      "    config:",
      "      adapter: redis",
      `      url: redis://127.0.0.1:${redis.port}`,
      "",
    ].join("\n"),
  );
  const engine = await spawnEngine({ config: file, cwd: dir, entry: ENTRY });
  try {
    const http = await engine.waitForLine(/Started worker engine-http/);
    const httpPort = /"port":(\d+)/.exec(http)?.[1];
    assert.ok(httpPort, http);
    await redis.accepted;
    Deno.kill(engine.child.pid, "SIGUSR1");
    const status = await engine.exited;
    const output = engine.lines.join("\n");
    assert.equal(status.code, 1, output);
    assert.match(
      output,
      /Error: Engine bug during start-up, stopping: unhandled promise rejection: Error: Stand-in for an engine bug/,
    );
    assert.match(output, /Engine stopped/);
    await assert.rejects(fetch(`http://127.0.0.1:${httpPort}/`));
  } finally {
    await engine.stop("SIGKILL");
    await redis.close();
    await Deno.remove(dir, { recursive: true });
  }
});

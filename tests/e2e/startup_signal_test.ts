/**
 * A SIGINT or SIGTERM while `engine --config` is still starting: the engine
 * stops what has started and exits 0, as after a run, without waiting for a
 * built-in worker whose start hangs (engine-state on a Redis stand-in that
 * accepts connections and never answers: its start would wait for the 10 s
 * command time-out). Deno's default action killed it with 130 or 143, its
 * start-up half done.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

/** A TCP server that accepts connections and never answers; `accepted` once one comes. */
function silentServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = Promise.withResolvers<void>();
  const conns: Deno.Conn[] = [];
  const loop = (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      accepted.resolve();
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: accepted.promise,
    async close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed by the engine */ }
      }
      await loop.catch(() => {});
    },
  };
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`engine --config: ${signal} while engine-state's start hangs stops the engine (exit 0)`, async () => {
    const redis = silentServer();
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
        "  - name: local",
        "    path: ./local",
        "",
      ].join("\n"),
    );
    await writeLocalWorker(`${dir}/local`, {
      name: "local",
      kind: "shell",
      entry: "run.sh",
      start: "echo local started; exec sleep 600",
    });
    const engine = await spawnEngine({ config: file, cwd: dir });
    try {
      const http = await engine.waitForLine(/Started worker engine-http/);
      const httpPort = /"port":(\d+)/.exec(http)?.[1];
      assert.ok(httpPort, http);
      // engine-state's start is under way: it has connected and waits for an answer.
      await redis.accepted;
      const status = await engine.kill(signal);
      const output = engine.lines.join("\n");
      assert.deepEqual(
        { code: status.code, signal: status.signal },
        { code: 0, signal: null },
        output,
      );
      assert.match(output, new RegExp(`Received ${signal}: shutting down`));
      assert.match(output, /Engine stopped/);
      // Not waited for: its start would have failed after the time-out.
      assert.doesNotMatch(output, /did not answer|failed to start/);
      // Local workers start after the built-ins: this one never did.
      assert.doesNotMatch(output, /local started/);
      // engine-http, started, was stopped.
      await assert.rejects(fetch(`http://127.0.0.1:${httpPort}/`));
    } finally {
      await engine.stop("SIGKILL");
      await redis.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

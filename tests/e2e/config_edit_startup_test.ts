/**
 * An edit of the config file made while the engine starts (after it read the
 * file, before it watches it) takes effect once start-up is done. The
 * watcher started after the first reconcile, so such an edit waited for the
 * next one. Start-up is held where it is slow for real: engine-state
 * connecting to Redis (through a stand-in that holds the connection until
 * the test lets it through to a real redis-server).
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { holdTcp } from "../support/held_tcp.ts";
import { startRedisServer } from "../support/redis_server.ts";

Deno.test("engine --config: an edit of the config made during start-up takes effect", async () => {
  const redis = await startRedisServer();
  const held = holdTcp(redis.port);
  const base = [
    "port: 0",
    "console:",
    "  enabled: false",
    "workers:",
    "  - name: engine-state",
    "    config:",
    "      adapter: redis",
    `      url: redis://127.0.0.1:${held.port}`,
    "",
  ].join("\n");
  const { dir, file } = await tempConfig(base);
  const engine = await spawnEngine({ config: file, cwd: dir });
  try {
    // engine-state's start waits for Redis: the engine has read the file and is starting.
    await held.accepted;
    await Deno.writeTextFile(file, `${base}  - name: engine-http\n    config: { port: 0 }\n`);
    held.release();
    await engine.waitForLine(/Started worker engine-state/);
    const reloaded = await engine.waitForLine(/Config reloaded/, 10_000);
    assert.match(reloaded, /Config reloaded: started "engine-http"/);
    const http = await engine.waitForLine(/Started worker engine-http/);
    const port = /"port":(\d+)/.exec(http)?.[1];
    assert.ok(port, http);
    const answer = await fetch(`http://127.0.0.1:${port}/nothing-here`);
    await answer.body?.cancel();
    assert.equal(answer.status, 404, "engine-http serves");
    assert.equal(await engine.stop(), 0, engine.lines.join("\n"));
  } finally {
    await engine.stop("SIGKILL");
    await held.close();
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

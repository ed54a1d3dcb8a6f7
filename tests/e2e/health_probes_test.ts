/**
 * `GET /health` (liveness) and `GET /health/ready` (readiness) on a real
 * engine process, on both transports: ready once started; `starting` while
 * a built-in worker of the config is still starting; `stopping` while a
 * SIGTERM drains a call in flight; `degraded` while a built-in worker the
 * config asks for could not start (engine-http's port taken), and ready
 * again once it starts.
 */
import assert from "node:assert/strict";
import { type EngineProcess, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { holdTcp } from "../support/held_tcp.ts";
import { eventually } from "../support/local_worker.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { startRedisServer } from "../support/redis_server.ts";

const TRANSPORTS = ["deno", "native"] as const;
const BASE = "port: 0\nconsole:\n  enabled: false\n";

interface Probe {
  status: number;
  body: Record<string, unknown>;
}

async function probe(engine: EngineProcess, path: "/health" | "/health/ready"): Promise<Probe> {
  const response = await fetch(`http://127.0.0.1:${engine.port}${path}`);
  return { status: response.status, body: await response.json() };
}

async function withEngine(
  text: string,
  transport: string,
  fn: (engine: EngineProcess, file: string) => Promise<void>,
): Promise<void> {
  const { dir, file } = await tempConfig(text);
  const engine = await spawnEngine({
    config: file,
    cwd: dir,
    env: { ENGINE_TRANSPORT: transport },
  });
  try {
    await fn(engine, file);
  } finally {
    await engine.stop("SIGKILL");
    await Deno.remove(dir, { recursive: true });
  }
}

for (const transport of TRANSPORTS) {
  Deno.test(`health (${transport}): ready once started, 503 stopping while SIGTERM drains a call`, async () => {
    await withEngine(BASE, transport, async (engine) => {
      await eventually(async () => (await probe(engine, "/health/ready")).status === 200, "ready");
      assert.deepEqual(await probe(engine, "/health/ready"), {
        status: 200,
        body: {
          status: "ok",
          workers: 1,
          functions: (await probe(engine, "/health")).body.functions,
        },
      });
      const live = await probe(engine, "/health");
      assert.equal(live.status, 200);
      assert.equal(live.body.status, "ok");

      // A call in flight holds the engine's stop (up to its grace period) until it is answered.
      const server = await RawWorker.connect(engine.url);
      const caller = await RawWorker.connect(engine.url);
      const answer = Promise.withResolvers<unknown>();
      const called = Promise.withResolvers<void>();
      server.serve("hold::op", () => (called.resolve(), answer.promise));
      await waitForFunctions(caller, ["hold::op"]);
      const result = caller.call("hold::op", {});
      await called.promise;
      try {
        const exited = engine.stop("SIGTERM");
        await engine.waitForLine(/Received SIGTERM: shutting down/);
        const ready = await probe(engine, "/health/ready");
        assert.equal(ready.status, 503, JSON.stringify(ready.body));
        assert.equal(ready.body.status, "stopping");
        assert.equal(typeof ready.body.workers, "number");
        const stillLive = await probe(engine, "/health");
        assert.deepEqual([stillLive.status, stillLive.body.status], [200, "stopping"]);
        answer.resolve({ done: true });
        assert.deepEqual((await result).result, { done: true });
        assert.equal(await exited, 0, engine.lines.join("\n"));
      } finally {
        answer.resolve(undefined);
        await Promise.allSettled([result, server.close(), caller.close()]);
      }
    });
  });

  Deno.test(`health (${transport}): degraded while engine-http's port is taken, ready once it starts`, async () => {
    await withEngine(BASE + "workers: []\n", transport, async (engine, file) => {
      await eventually(async () => (await probe(engine, "/health/ready")).status === 200, "ready");
      const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const port = taken.addr.port;
        const text = `${BASE}workers:\n  - name: engine-http\n    config: { port: ${port} }\n`;
        await Deno.writeTextFile(file, text);
        await engine.waitForLine(/Config reloaded: could not start "engine-http"/);
        const ready = await probe(engine, "/health/ready");
        assert.equal(ready.status, 503, JSON.stringify(ready.body));
        const { failed_workers, ...rest } = ready.body;
        assert.deepEqual(rest, {
          status: "degraded",
          workers: 1,
          functions: (await probe(engine, "/health")).body.functions,
        });
        assert.deepEqual(
          (failed_workers as Record<string, unknown>[]).map(({ since, ...w }) => {
            assert.ok(!Number.isNaN(Date.parse(String(since))), String(since));
            return w;
          }),
          [{ name: "engine-http", reason: "port in use" }],
        );
        // Liveness: the process is fine.
        const live = await probe(engine, "/health");
        assert.deepEqual([live.status, live.body.status], [200, "degraded"]);

        // Freed, and the file saved unchanged: engine-http starts, the engine is ready again.
        taken.close();
        await Deno.writeTextFile(file, text);
        await engine.waitForLine(/Config saved unchanged: started "engine-http"/);
        const back = await probe(engine, "/health/ready");
        assert.deepEqual([back.status, back.body.status], [200, "ok"]);
        assert.equal(back.body.failed_workers, undefined);
      } finally {
        try {
          taken.close();
        } catch { /* closed above */ }
      }
    });
  });
}

Deno.test("health: 503 starting while engine-state waits for Redis, ready once it started", async () => {
  const redis = await startRedisServer();
  const held = holdTcp(redis.port);
  const text = BASE +
    `workers:\n  - name: engine-state\n    config:\n      adapter: redis\n      url: redis://127.0.0.1:${held.port}\n`;
  try {
    await withEngine(text, "deno", async (engine) => {
      await held.accepted;
      const ready = await probe(engine, "/health/ready");
      assert.deepEqual([ready.status, ready.body.status], [503, "starting"]);
      const live = await probe(engine, "/health");
      assert.deepEqual([live.status, live.body.status], [200, "starting"]);
      held.release();
      await engine.waitForLine(/Started worker engine-state/);
      await eventually(async () => (await probe(engine, "/health/ready")).status === 200, "ready");
      assert.equal((await probe(engine, "/health/ready")).body.status, "ok");
      assert.equal(await engine.stop(), 0, engine.lines.join("\n"));
    });
  } finally {
    await held.close();
    await redis.stop();
  }
});

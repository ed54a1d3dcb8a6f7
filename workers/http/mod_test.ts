import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { RawWorker, waitForFunctions } from "../../tests/support/raw_worker.ts";
import { httpWorker } from "./mod.ts";

Deno.test("httpWorker starts on a free port, reports its status, and stops", async () => {
  const engine = await startEngine({ port: 0 });
  try {
    await engine.startBuiltin(httpWorker, httpWorker.parseConfig({ port: 0 }));
    const status = engine.describeBuiltin("engine-http") as Record<string, unknown>;
    assert.equal(status.host, "127.0.0.1");
    assert.ok(typeof status.port === "number" && status.port > 0);
    assert.deepEqual({ ...status, port: 0 }, {
      host: "127.0.0.1",
      port: 0,
      routes: [],
      in_flight: 0,
      waiting: 0,
    });
    const response = await fetch(`http://127.0.0.1:${status.port}/`);
    assert.equal(response.status, 404);
    await response.body?.cancel();
    assert.ok(
      engine.logs.query({ text: `API listening on address: 127.0.0.1:${status.port}` }).length ===
        1,
    );
    await engine.stopBuiltin("engine-http");
    await assert.rejects(fetch(`http://127.0.0.1:${status.port}/`));
  } finally {
    await engine.stop();
  }
});

Deno.test("httpWorker refuses to start on a port in use, naming the address", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const engine = await startEngine({ port: 0 });
  try {
    const config = httpWorker.parseConfig({ port: taken.addr.port });
    await assert.rejects(
      engine.startBuiltin(httpWorker, config),
      new Error(`Cannot listen on 127.0.0.1:${taken.addr.port}: address already in use`),
    );
    assert.deepEqual(engine.builtinNames(), []);
  } finally {
    taken.close();
    await engine.stop();
  }
});

Deno.test("httpWorker.defaultConfig is the reference configuration and parses", () => {
  assert.equal(httpWorker.name, "engine-http");
  const config = httpWorker.parseConfig(httpWorker.defaultConfig);
  assert.equal(config.port, 3111);
  assert.equal(config.host, "127.0.0.1");
  assert.deepEqual(config.cors?.allowed_origins, ["localhost"]);
});

Deno.test("httpWorker takes a changed config as it runs, keeping its listener and the requests in progress", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  const raw = await RawWorker.connect(engine.url);
  try {
    const config = httpWorker.parseConfig({ port: 0 });
    await engine.startBuiltin(httpWorker, config);
    const { port } = engine.describeBuiltin("engine-http") as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const release = Promise.withResolvers<void>();
    raw.serve("slow::hold", async () => {
      await release.promise;
      return { status_code: 200, body: { slow: true } };
    });
    raw.serve("fast::ok", () => ({ status_code: 200, body: { fast: true } }));
    for (const [id, path] of [["slow", "/slow"], ["fast", "/fast"]]) {
      raw.send({
        type: "registertrigger",
        id,
        trigger_type: "http",
        function_id: `${id}::${id === "slow" ? "hold" : "ok"}`,
        config: { api_path: path, http_method: "GET" },
      });
    }
    await waitForFunctions(raw, ["slow::hold", "fast::ok"]);
    const routed = async () => (await fetch(`${base}/fast`)).status === 200;
    while (!(await routed())) await new Promise((r) => setTimeout(r, 10));

    const inProgress = fetch(`${base}/slow`);
    await raw.next((f) => f.type === "invokefunction" && f.function_id === "slow::hold");
    const origin = "http://app.example";
    const changed = httpWorker.parseConfig({ port: 0, cors: { allowed_origins: [origin] } });
    assert.equal(await engine.reconfigureBuiltin("engine-http", changed), true);
    // New requests reach the new config at once, on the same port.
    const fresh = await fetch(`${base}/fast`, { headers: { origin } });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.headers.get("access-control-allow-origin"), origin);
    assert.deepEqual(await fresh.json(), { fast: true });
    // The request in progress carries on, and is still counted.
    assert.equal((engine.describeBuiltin("engine-http") as { in_flight: number }).in_flight, 1);
    release.resolve();
    const slow = await inProgress;
    assert.equal(slow.status, 200);
    assert.deepEqual(await slow.json(), { slow: true });
    // Another address takes a restart.
    const moved = httpWorker.parseConfig({ port: 0, host: "127.0.0.2" });
    assert.equal(await engine.reconfigureBuiltin("engine-http", moved), false);
    assert.equal(await engine.reconfigureBuiltin("engine-nothing", changed), false);
  } finally {
    await raw.close();
    await engine.stop();
  }
});

import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
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

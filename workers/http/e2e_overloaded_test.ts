/**
 * engine-http end to end: a route whose worker has stopped reading its
 * socket. The engine fails the calls it cannot queue any more with
 * `overloaded`, and engine-http answers them 503 with Retry-After.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { fetchJson } from "./_e2e.ts";
import { until } from "./_testing.ts";
import { httpWorker } from "./mod.ts";

type Reply = Awaited<ReturnType<typeof fetchJson>>;

/** Sends `frame` as a masked (all-zero key) text frame of the client at `conn`. */
async function sendFrame(conn: Deno.TcpConn, frame: unknown): Promise<void> {
  const payload = new TextEncoder().encode(JSON.stringify(frame));
  assert.ok(payload.length < 65_536, "a frame of a 16-bit length");
  const bytes = new Uint8Array(8 + payload.length);
  bytes[0] = 0x81;
  bytes[1] = 0x80 | 126;
  new DataView(bytes.buffer).setUint16(2, payload.length);
  bytes.set(payload, 8); // after a mask key of zeros: the payload stays as is
  await conn.write(bytes);
}

/**
 * A WebSocket client that registers `functionId` behind `POST /stuck`, then
 * never reads again, so what the engine sends it piles up.
 */
async function stalledWorker(port: number, functionId: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  await conn.write(new TextEncoder().encode(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  ));
  await conn.read(new Uint8Array(4096)); // the 101 response (and maybe workerregistered)
  await sendFrame(conn, { type: "registerfunction", id: functionId });
  await sendFrame(conn, {
    type: "registertrigger",
    id: "s",
    trigger_type: "http",
    function_id: functionId,
    config: { api_path: "/stuck", http_method: "POST" },
  });
  return conn;
}

Deno.test("engine-http answers 503 overloaded with Retry-After for a worker that stopped reading", async () => {
  const engine = await startEngine({
    port: 0,
    shutdownGraceMs: 0,
    maxBacklogBytes: 256 * 1024,
    builtins: [{
      worker: httpWorker,
      config: httpWorker.parseConfig({ port: 0, default_timeout: 5000 }),
    }],
  });
  const { port } = engine.describeBuiltin("engine-http") as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const stalled = await stalledWorker(engine.port, "stuck::in");
  try {
    await until(
      () => (engine.describeBuiltin("engine-http") as { routes: unknown[] }).routes.length === 1,
      "the /stuck route",
    );
    // Each call sends 512 KiB the worker never reads: the kernel's buffers take some, the
    // rest waits in the engine until it is past maxBacklogBytes.
    const body = JSON.stringify({ big: "y".repeat(512 * 1024) });
    const pending: Promise<Reply>[] = [];
    let overloaded: Reply | undefined;
    for (let i = 0; i < 80 && overloaded === undefined; i++) {
      let settled: Reply | undefined;
      const reply = fetchJson(base, "/stuck", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).then((r) => settled = r);
      pending.push(reply);
      // The next request goes once this one's call was sent on, or refused.
      const inFlight = pending.length - (overloaded ? 1 : 0);
      await until(
        () =>
          settled !== undefined ||
          engine.engine.invocations.perFunction()["stuck::in"] === inFlight,
        `call ${i + 1} in flight or answered`,
      );
      if (settled?.status === 503) overloaded = settled;
    }
    assert.ok(overloaded, "some call was refused as overloaded");
    assert.equal(overloaded.headers.get("retry-after"), "1");
    const error = (overloaded.body as { error: { code: string; message: string } }).error;
    assert.equal(error.code, "overloaded");
    assert.match(
      error.message,
      /^Cannot call stuck::in: worker "[^"]+" is not reading its socket \(\d+ bytes queued\)/,
    );
    stalled.close();
    for (const r of await Promise.all(pending)) assert.ok([502, 503].includes(r.status));
  } finally {
    try {
      stalled.close();
    } catch { /* closed above */ }
    await engine.stop();
  }
});

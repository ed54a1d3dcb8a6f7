/**
 * engine-http end to end against the engine's `max_frame_bytes`, with a real
 * worker process: a request body no call could carry gets 413, a result the
 * engine refuses as too large gets 502, both naming the limit and where it
 * is set; neither disturbs the connection, the worker or the next request.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { fetchJson, Fixture } from "./_e2e.ts";
import { httpWorker } from "./mod.ts";

type ErrorReply = { error: { code: string; message: string; error_id?: string } };

Deno.test("engine-http refuses a body over max_frame_bytes with 413 and a result over it with 502, naming the limit", async () => {
  const engine = await startEngine({
    port: 0,
    shutdownGraceMs: 100,
    maxFrameBytes: 4096,
    builtins: [{
      worker: httpWorker,
      config: httpWorker.parseConfig({ port: 0, default_timeout: 2000 }),
    }],
  });
  const { port } = engine.describeBuiltin("engine-http") as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const worker = await Fixture.start("api_worker", engine);
  const post = (bytes: number) =>
    fetchJson(base, "/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: "y".repeat(bytes) }),
    });
  try {
    const held = fetchJson(base, "/slow"); // a request in progress on another connection

    const big = await post(10_240);
    assert.equal(big.status, 413);
    assert.deepEqual(big.body, {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message: "Request body is larger than 4096 bytes, the engine's max_frame_bytes " +
          "(set in the engine config, below engine-http's body_limit of 1048576): " +
          "no call can carry it to a worker",
      },
    });
    const small = await post(1000);
    assert.equal(small.status, 200);

    const answer = await fetchJson(base, "/big?bytes=10240");
    assert.equal(answer.status, 502);
    const error = (answer.body as ErrorReply).error;
    assert.equal(error.code, "frame_too_large");
    assert.match(
      error.message,
      /^Function "h::big" answered with a result larger than the engine's max_frame_bytes \(set in the engine config\): The result of "h::big" from worker "http-e2e" was refused: Frame of 10\d{3} bytes exceeds the 4096-byte limit \(max_frame_bytes\)$/,
    );
    assert.match(error.error_id ?? "", /^[0-9a-f]{16}$/);
    assert.equal((await fetchJson(base, "/big?bytes=1000")).status, 200);

    // The worker is still there, and so is the request it was serving meanwhile.
    assert.equal((await fetchJson(base, "/users/1")).status, 200);
    assert.equal(engine.engine.functions.has("h::big"), true);
    assert.equal((await held).status, 504);
  } finally {
    await worker.kill();
    await engine.stop();
  }
});

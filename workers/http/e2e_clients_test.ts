/**
 * engine-http against clients that go away or break HTTP, over raw TCP.
 */
import assert from "node:assert/strict";
import { until } from "./_testing.ts";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";
import type { HttpWorkerStatus } from "./mod.ts";

/** Writes `head` and `body` to a new connection to `base`, then closes it without reading. */
async function sendAndLeave(base: string, head: string, body: string): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(base).port) });
  await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
  conn.close();
}

Deno.test("engine-http: a client that leaves mid-body ends its request as 499, logging no error", async () => {
  const stack = await startStack({ concurrency_request_limit: 2, default_timeout: 5000 });
  const worker = await Fixture.start("api_worker", stack.engine);
  const status = () => stack.engine.describeBuiltin("engine-http") as HttpWorkerStatus;
  const endedWith = (status: number) =>
    stack.engine.traces.ring.toArray().filter((s) =>
      s.name === "POST /echo" && s.attributes?.["http.response.status_code"] === status
    ).length;
  try {
    const head = "POST /echo HTTP/1.1\r\nHost: x\r\ncontent-type: application/json";
    await sendAndLeave(stack.base, `${head}\r\ncontent-length: 10`, '{"a');
    await sendAndLeave(stack.base, `${head}\r\ntransfer-encoding: chunked`, '3\r\n{"a\r\n');
    await until(() => endedWith(499) === 2, "two requests ended with 499");
    assert.equal(status().in_flight, 0);
    const errors = stack.engine.logs.query().filter((e) => e.level === "error");
    assert.deepEqual(errors.map((e) => e.message), []);
    const after = await fetchJson(stack.base, "/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    assert.equal(after.status, 200);
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

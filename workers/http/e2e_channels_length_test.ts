/**
 * The length of a streamed response: the body's own framing, never a
 * `content-length` the handler set (Deno sends the body cut to that length,
 * or a client reads past the end and fails), and no length at all in the
 * reply to a `HEAD` (Deno's own default there is `content-length: 0`, which
 * tells the client the body is empty). The header handling is engine-http's
 * own, so one transport is enough.
 */
import assert from "node:assert/strict";
import { open, route, stack, type Writer } from "./_channels_e2e.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("engine-http streams: the body's own length, whatever content-length the handler set", async (t) => {
  const { engine, worker, base, slots } = await stack("deno");
  const writers: Writer[] = [];
  try {
    for (const length of ["3", "100", "11"]) {
      await route(engine, worker, `/length-${length}`, async (req) => {
        const writer = await open(engine, req.response);
        writers.push(writer);
        writer.socket.send(JSON.stringify({
          type: "set_headers",
          headers: { "content-type": "text/plain", "Content-Length": length },
        }));
        writer.socket.send(encode("hello "));
        writer.socket.send(encode("world"));
        writer.socket.close(1000);
        return undefined;
      });
      await t.step(`content-length ${length} with an 11-byte body`, async () => {
        const response = await fetch(`${base}/length-${length}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-length"), null);
        assert.equal(await response.text(), "hello world");
      });
    }

    await t.step("HEAD of a streamed response gives no length, not 0", async () => {
      await route(engine, worker, "/streamed", async (req) => {
        const writer = await open(engine, req.response);
        writers.push(writer);
        writer.socket.send(JSON.stringify({ type: "set_status", status_code: 201 }));
        writer.socket.send(encode("a body of unknown length"));
        return undefined;
      });
      const response = await fetch(`${base}/streamed`, { method: "HEAD" });
      assert.equal(response.status, 201);
      assert.equal(response.headers.get("content-length"), null);
      assert.equal(await response.text(), "");
      await writers.at(-1)!.closed;
    });

    await t.step(
      "HEAD of a streamed response whose handler set content-length: none either",
      async () => {
        const response = await fetch(`${base}/length-3`, { method: "HEAD" });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-length"), null);
        await response.body?.cancel();
      },
    );

    await t.step("HEAD of a returned response still gives the GET reply's length", async () => {
      await route(engine, worker, "/returned", () => ({ status_code: 200, body: "abc" }));
      await route(engine, worker, "/empty", () => ({ status_code: 200 }));
      const returned = await fetch(`${base}/returned`, { method: "HEAD" });
      assert.equal(returned.headers.get("content-length"), "5"); // "abc" as JSON
      const empty = await fetch(`${base}/empty`, { method: "HEAD" });
      assert.equal(empty.headers.get("content-length"), "0");
    });
    assert.deepEqual(slots(), { in_flight: 0, waiting: 0 });
  } finally {
    for (const w of writers) w.socket.close();
    await worker.close();
    await engine.stop();
  }
});

/**
 * engine-http's channel refs with handlers written with the published npm
 * `iii-sdk@0.22.1`: a streamed response through `req.response`, the raw body
 * through `req.request_body`, handlers that ignore both, and a writer that
 * drops mid-stream.
 */
import assert from "node:assert/strict";
import { fetchJson, Fixture, startStack } from "./_e2e.ts";

Deno.test("engine-http: iii-sdk handlers stream responses and read raw bodies through channels", async (t) => {
  const stack = await startStack({ default_timeout: 3000 });
  const worker = await Fixture.start("iii_channels_worker", stack.engine);
  try {
    await t.step("a handler streams status, headers and several chunks", async () => {
      const response = await fetch(`${stack.base}/chan/stream?parts=5`);
      assert.equal(response.status, 201);
      assert.equal(response.headers.get("content-type"), "text/plain");
      assert.equal(response.headers.get("x-streamed"), "yes");
      assert.equal(await response.text(), "chunk 0;chunk 1;chunk 2;chunk 3;chunk 4;");
    });

    await t.step("a stream written before the handler returns wins over its value", async () => {
      const response = await fetch(`${stack.base}/chan/stream-then-return`);
      assert.equal(response.status, 200);
      const body = await response.text();
      assert.equal(body.length, 200 * 1024);
      assert.equal(body.slice(1024, 1025), "b");
    });

    await t.step(
      "set_status and set_headers, then a close with no data: an empty body",
      async () => {
        const response = await fetch(`${stack.base}/chan/empty`);
        assert.equal(response.status, 202);
        assert.equal(response.headers.get("x-test"), "yes");
        assert.equal(await response.text(), "");
      },
    );

    await t.step("a handler reads a text and a binary body with readAll()", async () => {
      const text = await fetchJson(stack.base, "/chan/read-body", {
        method: "POST",
        body: "héllo wörld",
        headers: { "content-type": "text/plain" },
      });
      assert.equal(text.status, 200);
      const textBody = text.body as { size: number; base64: string; parsed: unknown };
      assert.equal(
        atob(textBody.base64),
        String.fromCharCode(...new TextEncoder().encode("héllo wörld")),
      );
      assert.equal(textBody.parsed, "héllo wörld"); // our own parsing is unchanged

      const binary = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
      const bin = await fetchJson(stack.base, "/chan/read-body", {
        method: "POST",
        body: binary,
        headers: { "content-type": "application/octet-stream" },
      });
      assert.equal(bin.status, 200);
      const binBody = bin.body as { size: number; base64: string };
      assert.equal(binBody.size, binary.length);
      assert.deepEqual(Uint8Array.from(atob(binBody.base64), (c) => c.charCodeAt(0)), binary);
    });

    await t.step("a handler ignoring its refs answers with its value, as before", async () => {
      const plain = await fetchJson(stack.base, "/chan/plain");
      assert.equal(plain.status, 200);
      assert.deepEqual(plain.body, { plain: true });
    });

    await t.step("refs stop working when the request ends", async () => {
      const refs = await fetchJson(stack.base, "/chan/refs");
      const url = (refs.body as { response: string }).response.replace("ws://", "http://");
      const late = await fetch(url, { headers: { upgrade: "websocket" } });
      assert.equal(late.status, 404);
      assert.equal(
        ((await late.json()) as { error: { code: string } }).error.code,
        "CHANNEL_NOT_FOUND",
      );
    });

    await t.step("a writer dropping mid-stream ends the response short and is logged", async () => {
      const response = await fetch(`${stack.base}/chan/drop`);
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const first = await reader.read();
      assert.equal(new TextDecoder().decode(first.value), "partial;");
      await assert.rejects(async () => {
        for (;;) if ((await reader.read()).done) break;
      });
      const logged = stack.engine.logs.query({ level: "warn", text: "its writer disconnected" });
      assert.equal(logged.filter((e) => e.source === "engine").length, 1);
      // Nothing else is affected: the next request is answered.
      const plain = await fetchJson(stack.base, "/chan/plain");
      assert.equal(plain.status, 200);
    });

    await t.step(
      "a stream that stalls after its first chunk is cut after default_timeout and logged",
      async () => {
        const started = performance.now();
        const response = await fetch(`${stack.base}/chan/stall`);
        assert.equal(response.status, 200);
        const reader = response.body!.getReader();
        const first = await reader.read();
        assert.equal(new TextDecoder().decode(first.value), "started;");
        await assert.rejects(async () => {
          for (;;) if ((await reader.read()).done) break;
        });
        assert.ok(performance.now() - started >= 3000, "cut before default_timeout");
        const logged = stack.engine.logs.query({ level: "warn", text: "no chunk and no end for" });
        assert.equal(logged.length, 1);
      },
    );

    await t.step("no channel is left behind", async () => {
      const status = await fetchJson(stack.base, "/chan/plain");
      assert.equal(status.status, 200);
    });
  } finally {
    await worker.kill();
    await stack.stop();
  }
});

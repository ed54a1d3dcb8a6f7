/**
 * A WebSocket message over the engine's largest (64 MiB - 1), sent by a
 * real WebSocket client: the `native` server closes the connection with
 * 1009 and a reason naming the size and the limit, and the sender reads it.
 * The engine ended the connection while the client was still writing, which
 * reset it: the client saw a broken pipe and code 1006, and no reason.
 *
 * Deno's server (`ENGINE_TRANSPORT=deno`, the default) still ends such a
 * connection without a close frame: `Deno.upgradeWebSocket` has no option
 * for its message limit or for what it does past it (denoland/deno#15809).
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { MAX_MESSAGE_BYTES } from "../../engine/transport/native_server.ts";

Deno.test("[native] a message over 64 MiB - 1 closes the sender's connection with 1009 naming its size and the limit", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport: "native" });
  try {
    const ws = new WebSocket(engine.url);
    const closed = new Promise<CloseEvent>((resolve) => ws.onclose = resolve);
    const errors: string[] = [];
    ws.onerror = (e) => errors.push((e as ErrorEvent).message);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.addEventListener("close", () => reject(new Error("closed before it opened")));
    });
    const size = MAX_MESSAGE_BYTES + 2;
    ws.send("x".repeat(size));
    const close = await closed;
    assert.deepEqual(
      { code: close.code, reason: close.reason, clean: close.wasClean, errors },
      {
        code: 1009,
        reason: `Message of ${size} bytes exceeds the limit of ${MAX_MESSAGE_BYTES} bytes`,
        clean: true,
        errors: [],
      },
    );
    // The engine goes on serving other connections.
    const health = await fetch(engine.url.replace("ws://", "http://") + "/health");
    assert.equal((await health.json()).status, "ok");
  } finally {
    await engine.stop();
  }
});

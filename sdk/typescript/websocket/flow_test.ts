/**
 * Flow control of the WebSocket client: `drained()` holds a sender back while
 * the server reads nothing, `pause()` stops reading the server.
 */
import assert from "node:assert/strict";
import { WebSocketClient } from "./client.ts";
import { acceptFor } from "./handshake.ts";
import { encodeFrame, Opcode } from "./frame.ts";
import { startRawServer } from "../_testing/raw_server.ts";

/** A server that completes the upgrade and then reads nothing until told. */
function silentServer(): { url: string; readAll(): Promise<number>; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const accepted = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(4096);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) throw new Error("The client left before its upgrade request ended");
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    const key = /sec-websocket-key: *(.+)\r\n/i.exec(head)![1]!.trim();
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`,
    ));
    return conn;
  })();
  return {
    url,
    async readAll() {
      const conn = await accepted;
      const buf = new Uint8Array(1 << 20);
      let total = 0;
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) return total;
        total += n;
      }
    },
    close() {
      listener.close();
      accepted.then((conn) => conn.close()).catch(() => {});
    },
  };
}

Deno.test("drained() waits while the server reads nothing, and resolves once it reads", async () => {
  const server = silentServer();
  const ws = await WebSocketClient.connect(server.url);
  try {
    await ws.drained(); // nothing sent: at once
    const payload = new Uint8Array(1 << 20);
    for (let i = 0; i < 16; i++) ws.send(payload); // 16 MiB: more than the kernel buffers hold
    let drained = false;
    const waiting = ws.drained().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(drained, false, "drained() resolved while the server read nothing");
    const read = server.readAll();
    await waiting;
    ws.terminate();
    assert.ok(await read >= 15 * (1 << 20));
  } finally {
    ws.terminate();
    server.close();
  }
});

Deno.test("pause() stops delivering messages until resume()", async () => {
  const server = startRawServer();
  const ws = await WebSocketClient.connect(server.url);
  try {
    const conn = await server.connection(0);
    const got: string[] = [];
    let wake: (() => void) | undefined;
    ws.onmessage = (data) => {
      got.push(data as string);
      wake?.();
    };
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    let arrived = next();
    await conn.send(Opcode.Text, "one");
    await arrived;
    ws.pause();
    await conn.write(encodeFrame(Opcode.Text, new TextEncoder().encode("two"), false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(got, ["one"], "a message arrived while paused");
    arrived = next();
    ws.resume();
    await arrived;
    assert.deepEqual(got, ["one", "two"]);
  } finally {
    ws.terminate(); // the raw server answers no close frame
    await server.close();
  }
});

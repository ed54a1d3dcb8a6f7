/**
 * A channel's queue is bounded in bytes, not only in frames: a writer
 * sending 64 KiB frames into a channel of 1024 frames that nobody reads is
 * held back at 4 MiB (native: the socket stops being read), or closed with
 * 1008 once 16 MiB are held (deno, whose WebSocket cannot stop reading).
 * Before, all 32 MiB sent were queued (1024 frames of up to 64 MiB each).
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { type Channel, MAX_QUEUED_BYTES } from "../../engine/channels/channel.ts";
import { OVERFLOW_BYTES } from "../../engine/channels/socket_end.ts";
import type { TransportName } from "../../engine/transport/select.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const CHUNK = 64 * 1024;
const COUNT = 512; // 32 MiB

/** `deno eval` of a writer: opens the URL, sends COUNT chunks, prints "open" and waits. */
const WRITER = `
const [url, count, size] = Deno.args;
const socket = new WebSocket(url);
socket.onopen = () => {
  for (let i = 0; i < Number(count); i++) socket.send(new Uint8Array(Number(size)));
  console.log("open");
};
await new Promise((resolve) => socket.onclose = resolve);
`;

for (const transport of TRANSPORTS) {
  Deno.test(`channel bytes (${transport}): an unread channel holds a bounded number of bytes`, async () => {
    const engine = await startEngine({ port: 0, transport, shutdownGraceMs: 100 });
    const socketUrl = (ref: { channel_id: string; access_key: string }) =>
      `${engine.url}/ws/channels/${ref.channel_id}?key=${ref.access_key}&dir=write`;
    try {
      // A reservation hands the test the channel the socket's claim makes, to look at its queue.
      const channels = engine.builtinApi("engine").channels!;
      let channel: Channel | undefined;
      const writer = { channel_id: "bytes-1", access_key: crypto.randomUUID() };
      channels.reserveSource("bytes-", (id) =>
        id !== writer.channel_id ? undefined : {
          key: writer.access_key,
          refusal: () => undefined,
          open: (id, direction) => {
            channel = channels.add({ id, key: writer.access_key, bufferSize: 1024 });
            channel.claim("read"); // nobody reads it
            channel.claim(direction);
            return channel;
          },
        });
      // The writer is another process: a Deno WebSocket whose peer stops reading stalls its own
      // process's event loop, so it cannot be this one.
      const child = new Deno.Command(Deno.execPath(), {
        args: ["eval", WRITER, socketUrl(writer), String(COUNT), String(CHUNK)],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const opened = await lines.read();
      assert.match(opened.value ?? "", /^open/);
      assert.ok(channel !== undefined);
      try {
        if (transport === "deno") {
          // The engine closes it with 1008 (a client with this much unsent may see no close frame).
          let timer: ReturnType<typeof setTimeout> | undefined;
          const ended = await Promise.race([
            child.status.then(() => true),
            new Promise<false>((r) => timer = setTimeout(r, 20_000, false)),
          ]).finally(() => clearTimeout(timer));
          assert.ok(ended, `the writer was not closed: ${channel.queuedBytes} bytes held`);
          const logged = engine.logs.query({ level: "warn", text: "not keeping up" });
          assert.equal(logged.length, 1);
          assert.ok(channel.queuedBytes <= OVERFLOW_BYTES + CHUNK, `${channel.queuedBytes} held`);
        } else {
          // Held back: the queue reaches its bound, then stops growing while nothing is read.
          let held = -1;
          for (let i = 0; i < 400 && held !== channel.queuedBytes; i++) {
            held = channel.queuedBytes;
            await new Promise((r) => setTimeout(r, held < MAX_QUEUED_BYTES ? 25 : 300));
          }
          assert.ok(held >= MAX_QUEUED_BYTES, `${held} held`);
          assert.ok(held <= MAX_QUEUED_BYTES + CHUNK, `${held} held`);
        }
      } finally {
        try {
          child.kill("SIGKILL");
        } catch { /* exited */ }
        await child.status;
        await lines.cancel();
      }
    } finally {
      await engine.stop();
    }
  });
}

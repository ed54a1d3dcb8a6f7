/**
 * Data channels on both transports: `createChannel()` between two worker
 * processes on the published npm `iii-sdk@0.22.1`, the refusals of
 * `/ws/channels/...` before the upgrade, and the buffer bound against a fast
 * writer.
 */
import assert from "node:assert/strict";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import type { ChannelRef } from "../../engine/api.ts";
import { Fixture } from "../../workers/http/_e2e.ts";
import type { TransportName } from "../../engine/transport/select.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

function channelUrl(engine: RunningEngine, ref: ChannelRef, key = ref.access_key): string {
  return `${engine.url.replace("ws://", "http://")}/ws/channels/${ref.channel_id}?key=${
    encodeURIComponent(key)
  }&dir=${ref.direction}`;
}

/** The refusal of an upgrade request (sent as plain HTTP: the engine answers before upgrading). */
async function refusal(url: string): Promise<{ status: number; code: string; message: string }> {
  const response = await fetch(url, { headers: { upgrade: "websocket" } });
  const body = await response.json() as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

async function until<T>(what: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await what();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("Timed out after 10 s");
}

for (const transport of TRANSPORTS) {
  Deno.test(`channels (${transport}): iii-sdk workers, refusals, the buffer bound`, async (t) => {
    const engine = await startEngine({ port: 0, transport, shutdownGraceMs: 100 });
    const api = engine.builtinApi("engine");
    const channels = api.channels!;
    const sender = await Fixture.start("iii_channels_worker", engine);
    const receiver = await Fixture.start("iii_channels_worker", engine, { ROLE: "peer" });
    try {
      await t.step("createChannel() passes a ref through a call and streams across", async () => {
        const result = await api.call("chan::send", { parts: 50 });
        const expected = Array.from({ length: 50 }, (_, i) => `part ${i};`).join("");
        assert.deepEqual(result, { size: expected.length, text: expected });
      });

      await t.step("engine::channels::create checks buffer_size", async () => {
        const refs = await api.call("engine::channels::create", {}) as { reader: ChannelRef };
        assert.equal(refs.reader.direction, "read");
        await assert.rejects(
          api.call("engine::channels::create", { buffer_size: 2000 }),
          /Invalid input for engine::channels::create: field "buffer_size": Too big: expected number to be <=1024/,
        );
      });

      await t.step("an unknown id or a wrong key is 404, an end claimed twice 409", async () => {
        const { reader } = channels.create();
        const unknown = await refusal(channelUrl(engine, { ...reader, channel_id: "nope" }));
        assert.equal(unknown.status, 404);
        assert.equal(unknown.code, "CHANNEL_NOT_FOUND");
        assert.match(unknown.message, /Channel "nope" not found/);
        const wrong = await refusal(channelUrl(engine, reader, "not-the-key"));
        assert.equal(wrong.status, 404);
        assert.match(wrong.message, /wrong access key/);

        const socket = new WebSocket(channelUrl(engine, reader).replace("http://", "ws://"));
        await new Promise((resolve) => socket.onopen = resolve);
        const twice = await refusal(channelUrl(engine, reader));
        assert.equal(twice.status, 409);
        assert.equal(twice.code, "CHANNEL_CLAIMED");
        assert.match(twice.message, /its read end is claimed already/);
        const closed = new Promise((resolve) => socket.onclose = resolve);
        socket.close();
        await closed;
      });

      const bound = transport === "native"
        ? "the buffer bound holds a fast writer back"
        : "a writer past the bound is closed beyond 16 MiB held (Deno's WebSocket cannot pause)";
      await t.step(bound, async () => {
        const { reader, writer } = channels.create({ bufferSize: 4 });
        const count = 512; // 32 MiB in 64 KiB chunks: more than the kernel's socket buffers hold
        const flood = api.call("chan::flood", { writer, count, size: 65536 }, {
          timeoutMs: 60_000,
        });
        flood.catch(() => {});
        const end = channels.openReader(reader);
        const first = await end.read();
        assert.ok(first instanceof Uint8Array);
        // The writer writes until it is held back, then stalls while nothing is read.
        const written = async () =>
          (await api.call("chan::written", {}) as { written: number }).written;
        const stalled = await until(async () => {
          const before = await written();
          await new Promise((r) => setTimeout(r, 300));
          return before > 0 && before === await written() ? before : undefined;
        });
        assert.ok(stalled < count, `the writer wrote all ${count} chunks without being read`);
        if (transport === "native") {
          let bytes = first.byteLength;
          for (;;) {
            const frame = await end.read();
            if (frame === null) break;
            bytes += (frame as Uint8Array).byteLength;
          }
          assert.equal(bytes, count * 65536);
          assert.deepEqual(await flood, { written: count });
        } else {
          // Deno's WebSocket cannot stop reading: past 16 MiB held the writer is closed.
          const logged = engine.logs.query({ level: "warn", text: "not keeping up" });
          assert.equal(logged.length, 1);
          assert.deepEqual(await flood, { written: stalled, closed: true });
          await assert.rejects(async () => {
            for (;;) if (await end.read() === null) break;
          });
          end.close();
        }
      });
    } finally {
      await sender.kill();
      await receiver.kill();
      await engine.stop();
    }
  });
}

/**
 * The bounds of data channels in a real engine process, on both transports:
 * `channels.max_per_worker` and `channels.max_total` refuse
 * `engine::channels::create` with `CHANNEL_LIMIT` (naming the worker, the
 * count and the limit) while other workers and engine-http's per-request
 * channels go on; a channel that ended frees its place; a reader that left
 * before any writer came ends its channel.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker } from "../support/raw_worker.ts";
import type { ChannelRef } from "../../engine/api.ts";
import type { TransportName } from "../../engine/transport/select.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];

interface Refs {
  reader: ChannelRef;
  writer: ChannelRef;
}

/** A raw worker registered under `name` (the name the engine's errors use). */
async function named(url: string, name: string): Promise<RawWorker> {
  const worker = await RawWorker.connect(url);
  worker.send({
    type: "invokefunction",
    function_id: "engine::workers::register",
    data: { name, runtime: "deno" },
    action: { type: "void" },
  });
  // The register is handled before this call, on the same connection.
  await worker.call("engine::workers::list", {});
  return worker;
}

async function create(worker: RawWorker): Promise<Frame> {
  return await worker.call("engine::channels::create", { buffer_size: 4 });
}

function refsOf(frame: Frame): Refs {
  assert.equal(frame.error, undefined, JSON.stringify(frame.error));
  return frame.result as Refs;
}

function endUrl(engineUrl: string, ref: ChannelRef): string {
  return `${engineUrl}/ws/channels/${ref.channel_id}?key=${ref.access_key}&dir=${ref.direction}`;
}

/** Opens `ref` as a plain WebSocket, as an SDK's channel end does. */
async function openEnd(engineUrl: string, ref: ChannelRef) {
  const socket = new WebSocket(endUrl(engineUrl, ref));
  socket.binaryType = "arraybuffer";
  const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
  const frames: unknown[] = [];
  socket.onmessage = (e) => frames.push(e.data);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`Cannot open ${ref.channel_id}`));
  });
  return { socket, closed, frames };
}

/** The status of an upgrade request for `ref` (refused before the upgrade, as plain HTTP). */
async function statusOf(engineUrl: string, ref: ChannelRef): Promise<number> {
  const response = await fetch(endUrl(engineUrl.replace("ws://", "http://"), ref), {
    headers: { upgrade: "websocket" },
  });
  await response.body?.cancel();
  return response.status;
}

for (const transport of TRANSPORTS) {
  Deno.test(`channel limits (${transport}): per worker, in all, engine-http unaffected`, async (t) => {
    const { dir, file } = await tempConfig(
      [
        "port: 0",
        "console: { enabled: false }",
        "channels: { max_per_worker: 3, max_total: 5 }",
        "workers:",
        "  - name: engine-http",
        "    config: { port: 0 }",
        "",
      ].join("\n"),
    );
    const engine = await spawnEngine({ config: file, env: { ENGINE_TRANSPORT: transport } });
    const workers: RawWorker[] = [];
    try {
      const httpLine = await engine.waitForLine(/API listening on address: \S+:\d+/);
      const httpPort = Number(/:(\d+)\s*$/.exec(httpLine.trim())![1]);
      const hog = await named(engine.url, "hog");
      const other = await named(engine.url, "other");
      workers.push(hog, other);

      const hogs: Refs[] = [];
      await t.step(
        "a worker past max_per_worker is refused, naming it, the count and the limit",
        async () => {
          for (let i = 0; i < 3; i++) hogs.push(refsOf(await create(hog)));
          const refused = await create(hog);
          assert.equal(refused.error?.code, "CHANNEL_LIMIT");
          assert.match(
            refused.error.message,
            new RegExp(
              `^Cannot create a data channel for worker "hog" \\(id "${hog.workerId}"\\): ` +
                `it has 3 channels alive, its limit \\(channels.max_per_worker is 3\\)`,
            ),
          );
          // Its connection and its channels still work: a channel made before the refusal streams.
          const reader = await openEnd(engine.url, hogs[0]!.reader);
          const writer = await openEnd(engine.url, hogs[0]!.writer);
          writer.socket.send("hello");
          writer.socket.close(1000);
          const closed = await reader.closed;
          assert.equal(closed.code, 1000);
          assert.deepEqual(reader.frames, ["hello"]);
          await writer.closed;
        },
      );

      await t.step("a channel whose ends are done frees its place", async () => {
        // hogs[0] ended in the step before: the engine forgot it, so one more fits.
        hogs.push(refsOf(await create(hog)));
        assert.equal((await create(hog)).error?.code, "CHANNEL_LIMIT");
      });

      await t.step(
        "past max_total every worker is refused, naming the engine's limit",
        async () => {
          refsOf(await create(other));
          refsOf(await create(other));
          const refused = await create(other);
          assert.equal(refused.error?.code, "CHANNEL_LIMIT");
          assert.match(
            refused.error.message,
            /^Cannot create a data channel for worker "other" \(id "[^"]+"\): the engine holds 5 created channels, its limit \(channels.max_total is 5\)$/,
          );
        },
      );

      await t.step("engine-http's request channels are not counted", async () => {
        other.serve("limits::echo", async (data) => {
          const { request_body } = data as { request_body: ChannelRef };
          const body = await openEnd(engine.url, request_body);
          await body.closed;
          const text = new TextDecoder().decode(body.frames[0] as ArrayBuffer);
          return { status_code: 200, body: { got: text } };
        });
        other.send({
          type: "registertrigger",
          id: "limits-echo",
          trigger_type: "http",
          function_id: "limits::echo",
          config: { api_path: "echo", http_method: "POST" },
        });
        let response: Response | undefined;
        for (let i = 0; i < 400; i++) {
          response = await fetch(`http://127.0.0.1:${httpPort}/echo`, {
            method: "POST",
            body: "request body",
          });
          if (response.status !== 404) break;
          await response.body?.cancel();
          await new Promise((r) => setTimeout(r, 25));
        }
        assert.equal(response!.status, 200);
        assert.deepEqual(await response!.json(), { got: "request body" });
      });

      await t.step("a reader that leaves before any writer came ends its channel", async () => {
        const [, second] = hogs;
        const reader = await openEnd(engine.url, second!.reader);
        reader.socket.close(1000);
        await reader.closed;
        // The writer has nobody to write to: its end is gone, and the worker has room again.
        for (let i = 0; i < 400 && await statusOf(engine.url, second!.writer) !== 404; i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        assert.equal(await statusOf(engine.url, second!.writer), 404);
        refsOf(await create(hog));
      });

      await t.step("a worker leaving frees its unopened channels' places", async () => {
        await hog.close();
        const fresh = await named(engine.url, "fresh");
        workers.push(fresh);
        // The engine forgets hog's channels when it sees the connection go.
        let frame = await create(fresh);
        for (let i = 0; i < 400 && frame.error?.code === "CHANNEL_LIMIT"; i++) {
          await new Promise((r) => setTimeout(r, 25));
          frame = await create(fresh);
        }
        refsOf(frame);
      });
    } finally {
      for (const w of workers) await w.close();
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/**
 * The TypeScript SDK on Node and `engine.batch.v1` against the real engine on
 * both transports. Node runs the quickstart template's bundled SDK
 * (`engine-sdk.mjs`, the `deno bundle --platform node` build that
 * `cli/templates/generated_test.ts` keeps current); a byte proxy between Node
 * and the engine reads the subprotocol the engine chose and counts the
 * messages that carry the engine's calls to Node. Two hundred calls at once go
 * each way, answered out of order, and every result must meet its own call.
 * Skipped with a message when `node` is not on PATH.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { BATCH_PROTOCOL } from "../../sdk/typescript/batch.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";
import { FrameParser, MessageAssembler } from "../../sdk/typescript/websocket/frame.ts";
import { killAndWait, nodeVersion } from "../../sdk/typescript/_testing/node.ts";
import { ROOT } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const NODE = nodeVersion();
if (!NODE) console.warn("SKIPPING the Node batch test: `node` is not on PATH");

const BUNDLE = `${ROOT}cli/templates/quickstart/workers/caller-worker/engine-sdk.mjs`;
const COUNT = 200;

/** Node's worker: offers node::square, calls deno::triple COUNT times at once, prints the results. */
const SCRIPT = `
import { registerWorker } from "./engine-sdk.mjs";

const worker = registerWorker(process.env.ENGINE_URL, { worker_name: "node-batch" });
let finish;
const finished = new Promise((resolve) => (finish = resolve));
worker.registerFunction("node::square", async (n) => {
  await new Promise((resolve) => setTimeout(resolve, (${COUNT} - n) % 5)); // out of order
  return { n, square: n * n };
});
worker.registerFunction("node::call_many", async () => {
  const inputs = Array.from({ length: ${COUNT} }, (_, i) => i);
  return await Promise.all(inputs.map((n) => worker.trigger({ function_id: "deno::triple", payload: n })));
});
worker.registerFunction("node::finish", () => {
  finish();
  return "bye";
});
await worker.ready();
await finished;
await worker.shutdown();
`;

/** What the proxy saw coming from the engine on each connection. */
interface Downstream {
  protocol: string | null;
  /** Text messages from the engine, as they came. */
  messages: string[];
}

/** A TCP proxy in front of `port` that records the engine's side of each connection. */
function startProxy(port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: Downstream[] = [];
  const conns: Deno.Conn[] = [];
  const pipes: Promise<unknown>[] = [];
  const accepting = (async () => {
    for await (const client of listener) {
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.push(client, upstream);
      const down: Downstream = { protocol: null, messages: [] };
      seen.push(down);
      pipes.push(client.readable.pipeTo(upstream.writable).catch(() => {}));
      pipes.push(relayDown(upstream, client, down).catch(() => {}));
    }
  })().catch(() => {});
  return {
    url: `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen,
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      await accepting;
      await Promise.all(pipes);
    },
  };
}

/** Copies the engine's bytes to the client, reading the handshake and the text messages. */
async function relayDown(upstream: Deno.Conn, client: Deno.Conn, down: Downstream) {
  const parser = new FrameParser({ maxPayload: 1 << 30 });
  const assembler = new MessageAssembler({ maxMessageSize: 1 << 30 });
  let head: Uint8Array | undefined = new Uint8Array(0);
  const writer = client.writable.getWriter();
  for await (const chunk of upstream.readable) {
    await writer.write(chunk);
    let rest: Uint8Array = chunk;
    if (head !== undefined) {
      const all: Uint8Array = new Uint8Array(head.length + chunk.length);
      all.set(head);
      all.set(chunk, head.length);
      const text = new TextDecoder("latin1").decode(all);
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) {
        head = all;
        continue;
      }
      down.protocol = /^sec-websocket-protocol: *(.*?)\r$/im.exec(text.slice(0, end + 2))?.[1] ??
        null;
      rest = all.subarray(end + 4);
      head = undefined;
    }
    for (const frame of parser.push(rest)) {
      if (frame.opcode !== 0x0 && frame.opcode !== 0x1) continue;
      const message = assembler.add(frame);
      if (typeof message === "string") down.messages.push(message);
    }
  }
  await writer.close();
}

for (const transport of ["deno", "native"] as TransportName[]) {
  Deno.test({
    name: `[${transport}] the SDK on Node (${
      NODE ?? "node not on PATH"
    }) speaks engine.batch.v1 with the engine: ${COUNT} calls at once each way`,
    ignore: !NODE,
    async fn() {
      const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
      const proxy = startProxy(engine.port);
      const deno = registerWorker(engine.url, { worker_name: "deno-batch" });
      const dir = await Deno.makeTempDir({ prefix: "engine-sdk-node-batch-" });
      let child: Deno.ChildProcess | undefined;
      try {
        deno.registerFunction("deno::triple", async (n: number) => {
          await new Promise((resolve) => setTimeout(resolve, n % 3)); // out of order
          return n * 3;
        });
        await deno.ready();
        await Deno.copyFile(BUNDLE, join(dir, "engine-sdk.mjs"));
        await Deno.writeTextFile(join(dir, "worker.mjs"), SCRIPT);
        child = new Deno.Command("node", {
          args: ["worker.mjs"],
          cwd: dir,
          env: { ENGINE_URL: proxy.url },
          stdout: "inherit",
          stderr: "inherit",
          signal: AbortSignal.timeout(60_000),
        }).spawn();
        const api = engine.builtinApi("engine");
        const raw = await RawWorker.connect(engine.url);
        try {
          await waitForFunctions(raw, ["node::square", "node::call_many", "node::finish"], 20_000);
        } finally {
          await raw.close();
        }

        // Node is the only client of the proxy; it connected once.
        assert.equal(proxy.seen.length, 1, "connections through the proxy");
        const node = proxy.seen[0]!;
        assert.equal(node.protocol, BATCH_PROTOCOL, "the subprotocol the engine chose for Node");

        // The Deno SDK calls Node, COUNT calls at once.
        const inputs = Array.from({ length: COUNT }, (_, i) => i);
        const before = node.messages.length;
        const squares = await Promise.all(
          inputs.map((n) => deno.trigger({ function_id: "node::square", payload: n })),
        );
        assert.deepEqual(squares, inputs.map((n) => ({ n, square: n * n })));
        const carrying = node.messages.slice(before).filter((m) => m.includes("node::square"));
        const calls = carrying.flatMap((m) => m.split("\n")).filter((l) =>
          l.includes('"invokefunction"')
        );
        assert.equal(calls.length, COUNT, "every call reached Node once");
        assert.ok(
          carrying.length < COUNT,
          `${carrying.length} messages carried ${COUNT} calls to Node`,
        );

        // Node calls the Deno SDK, COUNT calls at once.
        assert.deepEqual(
          await deno.trigger({ function_id: "node::call_many", payload: {} }),
          inputs.map((n) => n * 3),
        );

        assert.equal(await api.call("node::finish", {}), "bye");
        const status = await child.status;
        assert.equal(status.code, 0, `node exited with ${status.code}`);
      } finally {
        await killAndWait(child);
        await deno.shutdown();
        await proxy.close();
        await engine.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/**
 * Data channels of our TypeScript SDK on Node: the SDK bundled for Node
 * (`sdk/typescript/build.ts`) runs a worker against a real engine with
 * engine-http: a streamed HTTP response, a request body read through
 * `request_body`, and `createChannel()` through the engine. Skipped with a
 * message when `node` is not on PATH.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleForNode } from "../../sdk/typescript/build.ts";
import { killAndWait, nodeVersion } from "../../sdk/typescript/_testing/node.ts";
import { fetchJson, startStack } from "../../workers/http/_e2e.ts";

const NODE = nodeVersion();
if (!NODE) console.warn("SKIPPING the Node channels test: `node` is not on PATH");

/** The worker Node runs; it prints one JSON line once its own channel round trip is done. */
const SCRIPT = `
import { createChannel, registerWorker, streamResponse } from "./engine-sdk.mjs";

const worker = registerWorker(process.env.ENGINE_URL, { worker_name: "node-channels" });
let finish;
const finished = new Promise((resolve) => (finish = resolve));
const http = (id, path, method, handler) => {
  worker.registerFunction(id, handler);
  worker.registerTrigger({ type: "http", function_id: id, config: { api_path: path, http_method: method } });
};
http("node::stream", "/node/stream", "GET", async (req) => {
  const res = streamResponse(req.response, { status_code: 203, headers: { "content-type": "text/plain" } });
  for (let i = 0; i < 3; i++) await res.write("node " + i + ";");
  await res.end(new Uint8Array(100_000).fill(110));
});
http("node::echo_body", "/node/echo-body", "POST", async (req) => ({
  status_code: 200,
  body: { text: await req.request_body.readText() },
}));
worker.registerFunction("node::receive", async ({ reader }) => {
  const messages = [];
  reader.onMessage((text) => messages.push(text));
  let size = 0;
  for await (const chunk of reader) size += chunk.byteLength;
  return { size, messages };
});
worker.registerFunction("node::finish", () => {
  finish();
  return "bye";
});
await worker.ready();
const channel = await createChannel({ bufferSize: 4 });
const received = worker.trigger({ function_id: "node::receive", payload: { reader: channel.readerRef } });
await channel.writer.sendMessage("hi from node");
await channel.writer.write(new Uint8Array(300_000));
await channel.writer.end();
console.log(JSON.stringify({ received: await received }));
await finished;
await worker.shutdown();
`;

Deno.test({
  name: `TypeScript SDK channels on Node (${NODE ?? "node not on PATH"})`,
  ignore: !NODE,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "engine-sdk-node-channels-" });
    const stack = await startStack({ default_timeout: 5000 });
    let child: Deno.ChildProcess | undefined;
    try {
      await bundleForNode(join(dir, "engine-sdk.mjs"));
      await Deno.writeTextFile(join(dir, "worker.mjs"), SCRIPT);
      child = new Deno.Command("node", {
        args: ["worker.mjs"],
        cwd: dir,
        env: { ENGINE_URL: stack.engine.url },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      }).spawn();
      const stderr = new Response(child.stderr).text();
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`node exited before reporting: ${await stderr}`);
        out += value;
      }
      const report = JSON.parse(out.split("\n")[0]!);
      assert.deepEqual(report, { received: { size: 300_000, messages: ["hi from node"] } });

      const response = await fetch(`${stack.base}/node/stream`);
      assert.equal(response.status, 203);
      assert.equal(response.headers.get("content-type"), "text/plain");
      assert.equal(await response.text(), "node 0;node 1;node 2;" + "n".repeat(100_000));

      const echoed = await fetchJson(stack.base, "/node/echo-body", {
        method: "POST",
        body: "body read on node: ✓",
        headers: { "content-type": "text/plain" },
      });
      assert.deepEqual(echoed.body, { text: "body read on node: ✓" });

      const api = stack.engine.builtinApi("engine");
      assert.equal(await api.call("node::finish", {}), "bye");
      await lines.cancel(); // the rest of stdout is not needed
      const status = await child.status;
      assert.equal(status.code, 0, `node exited with ${status.code}:\n${await stderr}`);
    } finally {
      await killAndWait(child);
      await stack.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleForNode } from "./build.ts";
import { type Json, ScriptedEngine } from "./_testing/engine_peer.ts";
import { nodeVersion } from "./_testing/node.ts";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

const NODE = nodeVersion();
if (!NODE) console.warn("SKIPPING the Node compatibility test: `node` is not on PATH");

/** The worker script Node runs against the bundle; it prints one JSON line. */
const SCRIPT = `
import { EngineError, Logger, registerWorker } from "./engine-sdk.mjs";

const worker = registerWorker(undefined, { worker_name: "node-worker", reconnect: { initialDelayMs: 10 } });
const logger = new Logger();
let finish;
const finished = new Promise((resolve) => (finish = resolve));
worker.registerFunction("node::echo", (payload, ctx) => {
  logger.info("echo called", { n: payload.n });
  return { payload, functionId: ctx.functionId };
});
worker.registerFunction("node::finish", () => {
  finish();
  return "bye";
});
await worker.ready();

const doubled = await worker.trigger({ function_id: "peer::double", payload: { n: 21 } });
let code;
try {
  await worker.trigger({ function_id: "peer::fail", payload: {} });
} catch (err) {
  code = err instanceof EngineError ? err.code : "not an EngineError";
}
const times = [];
const payload = "x".repeat(32 * 1024);
for (let i = 0; i < 21; i++) {
  const t0 = performance.now();
  await worker.trigger({ function_id: "peer::echo", payload });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const mib = "y".repeat(1024 * 1024);
const mibOk = (await worker.trigger({ function_id: "peer::echo", payload: mib })) === mib;
console.log(JSON.stringify({ doubled, code, median32k: times[10], mibOk }));
await finished;
await worker.shutdown();
`;

Deno.test({
  name: `the SDK bundled with deno bundle --platform node works on Node (${
    NODE ?? "node not on PATH"
  })`,
  ignore: !NODE,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "engine-sdk-node-" });
    const engine = new ScriptedEngine();
    try {
      await bundleForNode(join(dir, "engine-sdk.mjs"));
      await Deno.writeTextFile(join(dir, "worker.mjs"), SCRIPT);
      const child = new Deno.Command("node", {
        args: ["worker.mjs"],
        cwd: dir,
        env: { ENGINE_URL: engine.url, ENGINE_TOKEN: "node-token" },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(30_000),
      }).spawn();

      const conn = await engine.connection(0, 10_000);
      conn.autoReply((call): Json | undefined => {
        const data = call.data as Json;
        if (call.function_id === "peer::double") return { result: { n: (data.n as number) * 2 } };
        if (call.function_id === "peer::fail") {
          return { error: { code: "nope", message: "refused" } };
        }
        if (call.function_id === "peer::echo") return { result: data };
        return undefined;
      });
      assert.equal(conn.headers["authorization"], "Bearer node-token");
      const announce = await conn.waitType("invokefunction", "engine::workers::register", 10_000);
      assert.equal((announce.data as Json).runtime, "node");
      assert.equal((announce.data as Json).name, "node-worker");

      await conn.waitFor((f) => f.type === "registerfunction" && f.id === "node::echo");
      const echo = await conn.invoke("node::echo", { n: 5 }, { traceparent: TRACEPARENT });
      assert.deepEqual(echo.result, { payload: { n: 5 }, functionId: "node::echo" });
      assert.equal(echo.traceparent, TRACEPARENT);
      const log = await conn.waitType("invokefunction", "engine::log::info");
      assert.deepEqual(log.data, {
        message: "echo called",
        data: { n: 5 },
        function_id: "node::echo",
        trace_id: "0af7651916cd43dd8448eb211c80319c",
        span_id: "b7ad6b7169203331",
      });

      await conn.waitFor((f) =>
        f.type === "invokefunction" && f.function_id === "peer::echo" &&
        (f.data as string).length === 1024 * 1024, 20_000);
      assert.equal((await conn.invoke("node::finish", {})).result, "bye");
      const { code, stdout, stderr } = await child.output();
      const err = new TextDecoder().decode(stderr);
      assert.equal(code, 0, `node exited with ${code}:\n${err}`);
      const report = JSON.parse(new TextDecoder().decode(stdout).trim().split("\n").at(-1)!);
      assert.deepEqual(report.doubled, { n: 42 });
      assert.equal(report.code, "nope");
      assert.equal(report.mibOk, true);
      assert.ok(report.median32k < 20, `median 32 KB round trip on Node was ${report.median32k}ms`);
      await conn.closed;
      assert.equal(conn.closeEvent?.code, 1000);
    } finally {
      await engine.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

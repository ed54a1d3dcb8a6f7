/**
 * A worker process (Deno, then Node on the bundle) left holding open channel
 * ends exits after `shutdown()`, against a real engine: an end that closes
 * within the drain time is waited for, and the rest break off, so their
 * peers see an error, not a clean end.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createChannel, type EngineError, registerWorker, type Worker } from "../mod.ts";
import { bundleForNode } from "../build.ts";
import { killAndWait, nodeVersion } from "../_testing/node.ts";
import { spawnEngine, tempConfig } from "../../../tests/support/engine_process.ts";
import { readLines } from "../../../tests/support/lines.ts";

const NODE = nodeVersion();
if (!NODE) {
  console.warn("SKIPPING the Node step of the channel shutdown test: `node` is not on PATH");
}

/** The worker; `SDK` is replaced by the module to import. It prints what its own read saw. */
const SCRIPT = `
import { registerWorker } from "SDK";

const worker = registerWorker(undefined, { worker_name: "ends-worker", reconnect: { initialDelayMs: 10 } });
let late;
worker.registerFunction("ends::ping", () => "pong");
worker.registerFunction("ends::cut", async ({ out }) => {
  await out.write("partial");
  return "returned without end()";
});
worker.registerFunction("ends::late", async ({ out }) => {
  await out.write("first half");
  late = out;
  return "returned before the end";
});
worker.registerFunction("ends::read", ({ input }) => {
  input.readText().then(
    (text) => console.log("read ended cleanly: " + text),
    (err) => console.log("read failed: " + err.code + ": " + err.message),
  );
  return "reading";
});
worker.registerFunction("ends::stop", () => {
  setTimeout(async () => {
    const done = worker.shutdown({ drainTimeoutMs: 1000 });
    await late.write(", second half"); // a stream still going when shutdown() starts ends well
    await late.end();
    await done;
    console.log("shut down");
  });
  return "stopping";
});
await worker.ready();
`;

/** A child process whose output lines are kept. */
function spawnScript(cmd: string, file: string, env: Record<string, string>) {
  const child = new Deno.Command(cmd, {
    args: cmd === "node" ? [file] : ["run", "--allow-all", file],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream, { unterminated: true })) lines.push(line);
  };
  const output = Promise.all([pump(child.stdout), pump(child.stderr)]);
  return { child, lines, exited: output.then(() => child.status) };
}

async function runScenario(peer: Worker, cmd: string, file: string, engineUrl: string) {
  const worker = spawnScript(cmd, file, { ENGINE_URL: engineUrl });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const call = (function_id: string, payload: unknown) =>
      peer.trigger({ function_id, payload, timeoutMs: 10_000 });
    // Registered once a call through it answers (a missing function fails at once).
    while (await call("ends::ping", {}).catch(() => undefined) !== "pong") { /* starting */ }

    const cut = await createChannel({ worker: peer });
    assert.equal(await call("ends::cut", { out: cut.writerRef }), "returned without end()");
    const cutRead = cut.reader.readAll();
    cutRead.catch(() => {}); // awaited below
    const late = await createChannel({ worker: peer });
    assert.equal(await call("ends::late", { out: late.writerRef }), "returned before the end");
    const lateRead = late.reader.readText();
    lateRead.catch(() => {});
    const fed = await createChannel({ worker: peer });
    assert.equal(await call("ends::read", { input: fed.readerRef }), "reading");
    await fed.writer.write("some, never ended");

    assert.equal(await call("ends::stop", {}), "stopping");
    const gone = new Promise<"still running">((resolve) => {
      timer = setTimeout(() => resolve("still running"), 15_000);
    });
    const status = await Promise.race([worker.exited, gone]);
    const output = worker.lines.join("\n");
    assert.notEqual(
      status,
      "still running",
      `the worker did not exit after shutdown():\n${output}`,
    );
    assert.equal((status as Deno.CommandStatus).code, 0, output);
    assert.ok(worker.lines.includes("shut down"), output);
    assert.match(output, /^read failed: channel_broken: Channel "[^"]+" broke off: /m);

    assert.equal(await lateRead, "first half, second half");
    await assert.rejects(cutRead, (err: EngineError) => {
      assert.equal(err.code, "channel_broken");
      assert.match(err.message, /writer broke off/);
      return true;
    });
    await assert.rejects(async () => {
      for (;;) await fed.writer.write("more"); // until the close is seen
    }, { code: "channel_closed" });
  } finally {
    clearTimeout(timer);
    await killAndWait(worker.child);
    await worker.exited;
  }
}

Deno.test("shutdown() waits for open channel ends within the drain time, then breaks the rest, and the process exits", async (t) => {
  const { dir, file } = await tempConfig("port: 0\nworkers: []\nconsole:\n  enabled: false\n");
  const engine = await spawnEngine({ config: file });
  const peer = registerWorker(engine.url, {
    worker_name: "peer",
    reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
  });
  try {
    await peer.ready();
    await t.step("on Deno", async () => {
      const script = join(dir, "deno_worker.mjs");
      const sdk = new URL("../mod.ts", import.meta.url).href;
      await Deno.writeTextFile(script, SCRIPT.replace('"SDK"', JSON.stringify(sdk)));
      await runScenario(peer, Deno.execPath(), script, engine.url);
    });
    await t.step({
      name: `on Node (${NODE ?? "node not on PATH"})`,
      ignore: !NODE,
      async fn() {
        await bundleForNode(join(dir, "engine-sdk.mjs"));
        const script = join(dir, "node_worker.mjs");
        await Deno.writeTextFile(script, SCRIPT.replace('"SDK"', '"./engine-sdk.mjs"'));
        await runScenario(peer, "node", script, engine.url);
      },
    });
  } finally {
    await peer.shutdown();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

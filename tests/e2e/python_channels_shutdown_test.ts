/**
 * A Python worker process left holding open channel ends, against a real
 * engine: `shutdown()` waits for an end that closes within the drain time and
 * breaks the rest off, so their peers see an error, not a clean end, while
 * the process is still running (a program may go on after shutting a worker
 * down); then the process exits.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createChannel,
  type EngineError,
  registerWorker,
  type Worker,
} from "../../sdk/typescript/mod.ts";
import { killAndWait } from "../../sdk/typescript/_testing/node.ts";
import { ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { readLines } from "../support/lines.ts";

/** The worker. It prints what its own read saw, and stays up after shutdown() until stdin ends. */
const SCRIPT = `
import asyncio
import sys
import threading

from engine_sdk import ChannelError, register_worker

worker = register_worker(None, {"worker_name": "py-ends", "reconnect_initial_delay_ms": 10})
late = {}
stop = threading.Event()
reading = set()


async def cut(payload):
    await payload["out"].write(b"partial")
    return "returned without close()"


async def late_end(payload):
    await payload["out"].write(b"first half")
    late["out"] = payload["out"]
    return "returned before the end"


async def read(payload):
    reader = payload["input"]

    async def consume():
        try:
            data = await reader.read_all()
            print("read ended cleanly: " + data.decode(), flush=True)
        except ChannelError as err:
            print(f"read failed: {err.code}: {err.message}", flush=True)

    reading.add(asyncio.ensure_future(consume()))
    return "reading"


def stop_worker(payload):
    stop.set()
    return "stopping"


worker.register_function("ends::ping", lambda payload: "pong")
worker.register_function("ends::cut", cut)
worker.register_function("ends::late", late_end)
worker.register_function("ends::read", read)
worker.register_function("ends::stop", stop_worker)
stop.wait()
done = threading.Thread(target=worker.shutdown, kwargs={"drain_timeout": 1.0})
done.start()
late["out"].write_sync(b", second half")  # a stream still going when shutdown() starts ends well
late["out"].close_sync()
done.join()
print("shut down", flush=True)
sys.stdin.read()
print("exiting", flush=True)
`;

/** Resolves with `promise`, or rejects naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function spawnPython(file: string, engineUrl: string) {
  const child = new Deno.Command("python3", {
    args: ["-u", file],
    env: { ENGINE_URL: engineUrl, PYTHONPATH: `${ROOT}sdk/python`, PYTHONDONTWRITEBYTECODE: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const seen: { line: RegExp; resolve(): void }[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream, { unterminated: true })) {
      lines.push(line);
      for (const waiter of seen.filter((w) => w.line.test(line))) waiter.resolve();
    }
  };
  const output = Promise.all([pump(child.stdout), pump(child.stderr)]);
  /** Resolves once the process printed a line matching `line`. */
  const printed = (line: RegExp) =>
    lines.some((l) => line.test(l))
      ? Promise.resolve()
      : new Promise<void>((resolve) => seen.push({ line, resolve }));
  return { child, lines, printed, exited: output.then(() => child.status) };
}

async function runScenario(peer: Worker, file: string, engineUrl: string) {
  const worker = spawnPython(file, engineUrl);
  const output = () => worker.lines.join("\n");
  try {
    const call = (function_id: string, payload: unknown) =>
      peer.trigger({ function_id, payload, timeoutMs: 10_000 });
    // Registered once a call through it answers (a missing function fails at once).
    while (await call("ends::ping", {}).catch(() => undefined) !== "pong") { /* starting */ }

    const cut = await createChannel({ worker: peer });
    assert.equal(await call("ends::cut", { out: cut.writerRef }), "returned without close()");
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
    await within(worker.printed(/^shut down$/), 15_000, '"shut down" from the worker');

    // The process is still running: what its ends' peers see comes from shutdown() alone.
    assert.equal(await within(lateRead, 5_000, "the late stream"), "first half, second half");
    await assert.rejects(
      within(cutRead, 5_000, "the reader of the cut stream"),
      (err: EngineError) => {
        assert.equal(err.code, "channel_broken", err.message);
        return true;
      },
    );
    await assert.rejects(
      within(
        (async () => {
          for (;;) await fed.writer.write("more"); // until the close is seen
        })(),
        5_000,
        "the writer to the worker's reader",
      ),
      { code: "channel_closed" },
    );
    await within(worker.printed(/^read /), 5_000, "the worker's own read");
    assert.match(
      output(),
      /^read failed: channel_broken: Channel "[^"]+" broke off: the worker shut down$/m,
    );

    await worker.child.stdin.close();
    const status = await within(worker.exited, 15_000, "the worker's exit");
    assert.equal(status.code, 0);
    assert.ok(worker.lines.includes("exiting"));
  } catch (err) {
    throw new Error(
      `${err instanceof Error ? err.message : err}\nThe worker's output:\n${output()}`,
      {
        cause: err,
      },
    );
  } finally {
    await killAndWait(worker.child);
    await worker.exited;
  }
}

Deno.test("Python SDK: shutdown() waits for open channel ends within the drain time, then breaks the rest off", async () => {
  const { dir, file } = await tempConfig("port: 0\nworkers: []\nconsole:\n  enabled: false\n");
  const engine = await spawnEngine({ config: file });
  const peer = registerWorker(engine.url, {
    worker_name: "peer",
    reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
  });
  try {
    await peer.ready();
    const script = join(dir, "py_worker.py");
    await Deno.writeTextFile(script, SCRIPT);
    await runScenario(peer, script, engine.url);
  } finally {
    await peer.shutdown();
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

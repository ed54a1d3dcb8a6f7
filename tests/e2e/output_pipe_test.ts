/**
 * The engine's stdout and stderr as pipes that misbehave, as under a log
 * shipper: a reader that stops reading (the pipe fills) must not stall the
 * engine, and a reader that goes away (`engine | head -1`) must not end it.
 * The engine is spawned here with its own pipes (not `spawnEngine`, which
 * always reads both).
 */
import assert from "node:assert/strict";
import { MAIN, ROOT, tempConfig } from "../support/engine_process.ts";
import { readLines } from "../support/lines.ts";
import { RawWorker } from "../support/raw_worker.ts";

/** The engine with both streams piped, and its stdout read until it listens. */
async function engineWithPipes() {
  const { dir, file } = await tempConfig("port: 0\nconsole:\n  enabled: false\nworkers: []\n");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "--config", file],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = lineReader(child.stdout.getReader());
  let url: string | undefined;
  while (!url) {
    const line = await stdout.next();
    assert.ok(line !== undefined, "the engine exited before listening");
    url = /Engine listening on (ws:\/\/\S+)/.exec(line)?.[1];
  }
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await Promise.allSettled([stdout.cancel(), child.stderr.cancel()]);
    await Deno.remove(dir, { recursive: true });
  };
  return { child, url, stdout, stop };
}

/**
 * Lines read from `reader` only when asked for, one `next()` at a time (a
 * `for await` over the stream would keep reading, and cancel it on `break`).
 */
function lineReader(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<string | undefined> {
      while (!buffer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
      const newline = buffer.indexOf("\n");
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      return line;
    },
    cancel: () => reader.cancel(),
  };
}

async function health(url: string): Promise<number> {
  const response = await fetch(`http://${new URL(url).host}/health`, {
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}

/** `count` log entries of `bytes` characters each through `engine::log::info`, all answered. */
async function logLines(worker: RawWorker, count: number, bytes: number, tag: string) {
  const calls = [];
  for (let i = 0; i < count; i++) {
    calls.push(worker.call("engine::log::info", { message: `${tag} ${i} ${"x".repeat(bytes)}` }));
  }
  for (const call of await Promise.all(calls)) assert.equal(call.error, undefined);
}

Deno.test("an engine whose stdout is not read keeps serving, drops log lines and says how many once read again", async () => {
  const engine = await engineWithPipes();
  const stderr = readLines(engine.child.stderr);
  try {
    const worker = await RawWorker.connect(engine.url);
    // Far beyond a pipe's 64 KiB, nobody reading stdout: every call is still answered.
    await logLines(worker, 400, 4096, "stalled");
    assert.equal(await health(engine.url), 200);
    await logLines(worker, 1, 10, "after");
    // Reading again: what was held comes out, then a count of what was dropped, then new lines.
    const seen: string[] = [];
    for (
      let line = await engine.stdout.next();
      line !== undefined;
      line = await engine.stdout.next()
    ) {
      seen.push(line.slice(0, 120));
      if (/INFO .* after 0 x/.test(line)) break;
    }
    assert.ok(seen.some((l) => /stalled 0 x/.test(l)), seen.join("\n"));
    const note = seen.find((l) => /lines? of output dropped/.test(l));
    assert.match(note ?? seen.join("\n"), /^… \d+ lines of output dropped: stdout was not read/);
    await worker.close();
    engine.child.kill("SIGTERM");
    assert.equal((await engine.child.status).code, 0);
    for await (const _ of stderr) { /* drain */ }
  } finally {
    await engine.stop();
  }
});

Deno.test("an engine whose stdout reader went away keeps running and says so once on stderr", async () => {
  const engine = await engineWithPipes();
  try {
    await engine.stdout.cancel();
    const worker = await RawWorker.connect(engine.url);
    await logLines(worker, 20, 10, "unread");
    assert.equal(await health(engine.url), 200);
    // The first line on stderr (nothing else is printed there): at once, not when the engine ends.
    const stderr = readLines(engine.child.stderr)[Symbol.asyncIterator]();
    const first = await Promise.race([
      stderr.next(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("Nothing on stderr within 10 s")), 10_000)
      ),
    ]);
    const line = first.done ? undefined : first.value;
    assert.match(
      line ?? "",
      /^Output to stdout stopped: its reader went away \(Broken pipe.*\): the engine runs on/,
    );
    await worker.close();
    engine.child.kill("SIGTERM");
    assert.equal((await engine.child.status).code, 0);
  } finally {
    await engine.stop();
  }
});

/**
 * `engine logs -f` writes log entries only on its standard output, so that
 * `engine logs -f > file` and `| grep` see nothing else, also while the
 * engine is away and the follower reconnects.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { MAIN, ROOT } from "../support/engine_process.ts";
import { readLines } from "../support/lines.ts";

Deno.test("engine logs -f keeps its standard output to log entries while the engine restarts", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  let stopped = false;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "logs", "-f", "-n", "1", `--url=${engine.url}`],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const err: string[] = [];
  let notify = () => {};
  const until = async (test: () => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`No ${what}: out ${out} err ${err}`);
      // Woken by the next line, or after a second to check the deadline.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        notify = resolve;
        timer = setTimeout(resolve, 1000);
      });
      clearTimeout(timer);
    }
  };
  const pump = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    for await (const line of readLines(stream, { unterminated: true })) {
      into.push(line);
      notify();
    }
  };
  const pumps = Promise.all([pump(child.stdout, out), pump(child.stderr, err)]);
  try {
    await until(() => out.length > 0, "first entry");
    await engine.stop();
    stopped = true;
    const reconnecting = () => [...out, ...err].some((line) => /Reconnecting in/.test(line));
    await until(reconnecting, "reconnect attempt");
    const entry = /^\d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO|WARN|ERROR) /;
    assert.deepEqual(out.filter((line) => !entry.test(line)), [], "stdout holds only entries");
    assert.ok(err.some((line) => /Reconnecting in/.test(line)), err.join("\n"));
  } finally {
    child.kill("SIGINT");
    await child.status;
    await pumps;
    if (!stopped) await engine.stop();
  }
});

/**
 * `engine logs -f` when the engine goes away: like `docker logs -f` when its
 * container stops, it ends, with one line of its own on standard error (no
 * SDK notices about disconnecting and reconnecting) and exit code 1, and its
 * standard output holds only log entries, so that `engine logs -f > file`
 * and `| grep` see nothing else. Real engine and CLI processes.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { readLines } from "../support/lines.ts";

const CONFIG = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\nworkers: []\n";
const ENTRY = /^\d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO|WARN|ERROR) /;

/** `why`: a pattern of the reason in parentheses. */
const cases: { how: string; signal: Deno.Signal; why: string }[] = [
  {
    how: "stops (SIGTERM)",
    signal: "SIGTERM",
    // The reason is the transport's ("Server shutting down", "engine shutting down").
    why: "it closed the connection: code 1001(, [^)]+)?",
  },
  { how: "is killed (SIGKILL)", signal: "SIGKILL", why: "connection lost" },
];

for (const { how, signal, why } of cases) {
  Deno.test(`engine logs -f ends with one line of its own and exit 1 when the engine ${how}`, async () => {
    const { dir, file } = await tempConfig(CONFIG);
    const engine = await spawnEngine({ config: file });
    let engineRuns = true;
    // The entry -n 1 prints first (the CLI's own connections leave none).
    const wrote = await runCli(
      ["trigger", "--function-id=engine::log::info", '--payload={"message":"first"}'],
      { env: { ENGINE_URL: engine.url } },
    );
    assert.equal(wrote.code, 0, wrote.stderr);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "logs", "-f", "-n", "1", `--url=${engine.url}`],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let childRuns = true;
    const out: string[] = [];
    const err: string[] = [];
    let notify = () => {};
    const pump = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
      for await (const line of readLines(stream, { unterminated: true })) {
        into.push(line);
        notify();
      }
    };
    const pumps = Promise.all([pump(child.stdout, out), pump(child.stderr, err)]);
    const shown = () => `stdout:\n${out.join("\n")}\nstderr:\n${err.join("\n")}`;
    try {
      // Woken by each line; the time-out only bounds a failing wait.
      const deadline = Date.now() + 20_000;
      while (out.length === 0) {
        if (Date.now() > deadline) throw new Error(`No first entry:\n${shown()}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          notify = resolve;
          timer = setTimeout(resolve, 1000);
        });
        clearTimeout(timer);
      }
      await engine.kill(signal);
      engineRuns = false;

      let timer: ReturnType<typeof setTimeout> | undefined;
      const status = await Promise.race([
        child.status,
        new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 20_000)),
      ]);
      clearTimeout(timer);
      assert.ok(status, `engine logs -f still runs 20 s after the engine went away:\n${shown()}`);
      childRuns = false;
      await pumps;
      assert.equal(status.code, 1, shown());
      assert.deepEqual(out.filter((line) => !ENTRY.test(line)), [], "stdout holds only entries");
      assert.equal(err.length, 1, shown());
      assert.match(
        err[0]!,
        new RegExp(
          `^Error: The engine at ${engine.url} went away \\(${why}\\): ` +
            "no more entries to follow$",
        ),
      );
    } finally {
      if (childRuns) {
        child.kill("SIGKILL");
        await child.status;
        await pumps;
      }
      if (engineRuns) await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/**
 * `engine logs`, `engine console` and the console `engine` starts itself,
 * as a user runs them: a spawned engine, the CLI as real processes.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { spawnLineProcess } from "../support/line_process.ts";
import { freePort } from "../support/ports.ts";

const CONFIG = "host: 127.0.0.1\nport: 0\nworkers: []\nconsole:\n  enabled: false\n";

/** A long-running CLI command whose output lines can be awaited. */
function spawnCli(args: string[], env: Record<string, string>) {
  const cli = spawnLineProcess(["run", "--allow-all", MAIN, ...args], {
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    name: `engine ${args.join(" ")}`,
    timeoutMs: 20_000,
  });
  return {
    lines: cli.lines,
    waitForLine: cli.waitForLine,
    async stop(signal: Deno.Signal = "SIGINT"): Promise<number> {
      return (await cli.kill(signal)).code;
    },
  };
}

const log = (url: string, level: string, message: string) =>
  runCli([
    "trigger",
    `--function-id=engine::log::${level}`,
    `--payload=${JSON.stringify({ message })}`,
  ], {
    env: { ENGINE_URL: url },
  });

Deno.test("engine logs prints the engine's log, filtered by level and worker", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  try {
    assert.equal((await log(engine.url, "warn", "disk almost full")).code, 0);
    assert.equal((await log(engine.url, "info", "all is well")).code, 0);
    const env = { ENGINE_URL: engine.url };

    const all = await runCli(["logs"], { env });
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[engine-cli\] disk almost full$/m);
    assert.match(all.stdout, /INFO {2}\[engine-cli\] all is well$/m);

    const warn = await runCli(["logs", "--level", "warn"], { env });
    assert.match(warn.stdout, /disk almost full/);
    assert.doesNotMatch(warn.stdout, /all is well/);

    const none = await runCli(["logs", "--worker", "nobody"], { env });
    assert.equal(none.code, 0);
    assert.equal(none.stdout, "");
    assert.match(
      none.stderr,
      /^No log entries from "nobody", and no worker of that name is connected \(connected: .*engine-logs.*\)\n$/,
    );

    // A worker that has gone keeps its entries, and is not reported as unknown.
    const gone = await runCli(["logs", "--worker", "engine-cli"], { env });
    assert.match(gone.stdout, /disk almost full/);
    assert.equal(gone.stderr, "");

    const limited = await runCli(["logs", "-n", "1"], { env });
    assert.equal(limited.stdout.trim().split("\n").length, 1);
  } finally {
    await engine.stop();
  }
});

Deno.test("engine logs --follow prints new entries as they are written, until SIGINT", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  try {
    await log(engine.url, "info", "written before");
    const follow = spawnCli(["logs", "--follow", "--level", "info"], { ENGINE_URL: engine.url });
    // Past entries are printed once the live listener is in place.
    await follow.waitForLine(/written before/);
    await log(engine.url, "error", "written after");
    await follow.waitForLine(/ERROR \[engine-cli\] written after$/);
    await log(engine.url, "debug", "too quiet");
    await log(engine.url, "warn", "last one");
    await follow.waitForLine(/last one/);
    assert.ok(!follow.lines.some((l) => l.includes("too quiet")), "below --level");
    assert.equal(follow.lines.filter((l) => l.includes("written before")).length, 1);
    assert.equal(await follow.stop("SIGINT"), 0);
  } finally {
    await engine.stop();
  }
});

Deno.test("engine logs --follow ends when the reader of its output goes away (engine logs -f | head -1)", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "logs", "--follow", "--level", "info"],
    cwd: ROOT,
    env: { NO_COLOR: "1", ENGINE_URL: engine.url },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    await log(engine.url, "info", "the first line");
    // Read until the first entry, then close the pipe's reading end, as `head -1` does.
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("the first line")) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the output ended before the first entry: ${JSON.stringify(text)}`);
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    // The next entry finds no reader: the command ends (it waited for Ctrl-C before).
    await log(engine.url, "info", "nobody reads this");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      child.status,
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 15_000)),
    ]);
    clearTimeout(timer);
    assert.ok(status, "engine logs --follow still runs 15 s after its reader went away");
    assert.equal(status.code, 0);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* it has exited */ }
    await child.status;
    await engine.stop();
  }
});

Deno.test("engine logs reports an unreachable engine in one line with exit 1, bad flags with 2", async () => {
  const port = freePort("0.0.0.0");
  const down = await runCli(["logs"], { env: { ENGINE_URL: `ws://127.0.0.1:${port}` } });
  assert.equal(down.code, 1);
  assert.match(
    down.stderr.trim(),
    new RegExp(`^Error: Cannot reach the engine at ws://127\\.0\\.0\\.1:${port}: `),
  );
  assert.equal(down.stderr.trim().split("\n").length, 1);

  const bad = await runCli(["logs", "--level", "loud"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--level must be one of debug, info, warn, error: got "loud"/);
  assert.match(bad.stderr, /Usage: engine logs/);
});

Deno.test("engine console serves the console for the engine at ENGINE_URL and prints its address", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  try {
    const cli = spawnCli(["console", "--port", "0"], { ENGINE_URL: engine.url });
    const line = await cli.waitForLine(/^Console on http:\/\//);
    const url = /(http:\/\/\S+)/.exec(line)![1]!;
    assert.match(line, new RegExp(`\\(engine ${engine.url.replaceAll(".", "\\.")}\\)`));
    assert.match(await (await fetch(url)).text(), /<title>engine console<\/title>/);
    const { workers } = await (await fetch(`${url}/api/workers`)).json();
    assert.ok(workers.some((w: { name: string }) => w.name === "engine-console"));
    assert.equal(await cli.stop("SIGTERM"), 0);
  } finally {
    await engine.stop();
  }
});

Deno.test("engine console refuses an address beyond loopback without a token", async () => {
  const r = await runCli(["console", "--host", "0.0.0.0", "--port", "0"], {
    env: { ENGINE_URL: "ws://127.0.0.1:9", ENGINE_CONSOLE_TOKEN: "" },
  });
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr.trim(),
    'Error: Console bound to "0.0.0.0" requires a token: set "console.token" or ENGINE_CONSOLE_TOKEN, or bind it to "127.0.0.1"',
  );
});

Deno.test("engine starts its console when console.enabled and prints where", async () => {
  const { file } = await tempConfig("host: 127.0.0.1\nport: 0\nconsole:\n  port: 0\n");
  const engine = await spawnEngine({ config: file });
  try {
    const line = await engine.waitForLine(/^Console on http:\/\//);
    const url = /(http:\/\/\S+)/.exec(line)![1]!;
    const health = await (await fetch(`${url}/api/health`)).json();
    assert.equal(health.status, "ok");
  } finally {
    assert.equal(await engine.stop(), 0);
  }
});

Deno.test("engine logs --trace-ids ends an entry's line with its trace id; the default line is unchanged", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  try {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const written = await runCli([
      "trigger",
      "--function-id=engine::log::info",
      `--payload=${JSON.stringify({ message: "traced entry", trace_id: traceId })}`,
    ], { env: { ENGINE_URL: engine.url } });
    assert.equal(written.code, 0, written.stderr);
    assert.equal((await log(engine.url, "info", "untraced entry")).code, 0);
    const env = { ENGINE_URL: engine.url };
    const cases: [string[], RegExp, RegExp][] = [
      [[], /\] traced entry$/m, /\] untraced entry$/m],
      [
        ["--trace-ids"],
        new RegExp(`\\] traced entry trace=${traceId}$`, "m"),
        /\] untraced entry$/m,
      ],
      [
        ["--trace-ids", "--trace", traceId],
        new RegExp(`traced entry trace=${traceId}$`, "m"),
        /^$/,
      ],
    ];
    for (const [args, traced, untraced] of cases) {
      const printed = await runCli(["logs", ...args], { env });
      assert.equal(printed.code, 0, printed.stderr);
      assert.match(printed.stdout, traced, `${args.join(" ")}: ${printed.stdout}`);
      if (args.includes("--trace")) {
        assert.doesNotMatch(printed.stdout, /untraced entry/);
      } else assert.match(printed.stdout, untraced, `${args.join(" ")}: ${printed.stdout}`);
    }
  } finally {
    await engine.stop();
  }
});

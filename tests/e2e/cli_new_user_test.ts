/**
 * What a new user trips on first, run as they run it: the CLI in a real
 * process, from the folder they happen to be in.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startEngine } from "../../engine/engine.ts";
import { parseLogsArgs } from "../../cli/logs.ts";
import { ROOT, runCli } from "../support/engine_process.ts";
import { freePort } from "../support/ports.ts";

Deno.test("engine worker commands run in a folder inside a project name the project's config instead of suggesting a new one", async () => {
  const root = await Deno.makeTempDir({ prefix: "engine-test-" });
  try {
    const config = join(root, "engine-config.yaml");
    await Deno.writeTextFile(config, "workers: []\n");
    const worker = join(root, "workers", "greeter");
    await Deno.mkdir(worker, { recursive: true });
    const cases: [string[], string, string][] = [
      [["worker", "add", "."], worker, "../../engine-config.yaml"],
      [["worker", "list"], worker, "../../engine-config.yaml"],
      [["worker", "remove", "greeter"], join(root, "workers"), "../engine-config.yaml"],
    ];
    for (const [args, cwd, relativeConfig] of cases) {
      const r = await runCli(args, { env: { ENGINE_CALLER_DIR: cwd } });
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.equal(
        r.stderr.trim(),
        `Error: No config file at "${join(cwd, "engine-config.yaml")}": the nearest one is ` +
          `"${config}": run the command in "${root}", or add --config ${relativeConfig}`,
        args.join(" "),
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("engine console for an engine that is not there, or that refuses it, says so at once in one line", async () => {
  const url = `ws://127.0.0.1:${freePort()}`;
  const down = await runCli(["console", "--port", "0", "--url", url]);
  assert.equal(down.code, 1);
  // Not the SDK's "Reconnecting in …" lines for seconds before the error.
  assert.match(down.stderr, new RegExp(`^Error: Cannot reach the engine at ${url}: .+\n$`));
  assert.equal(down.stdout, "");

  const engine = await startEngine({ port: 0, token: "t0k3n-for-tests", shutdownGraceMs: 0 });
  try {
    const refused = await runCli(["console", "--port", "0", "--url", engine.url]);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `Error: Cannot reach the engine at ${engine.url}: the engine requires a token (HTTP 401): ` +
        "set ENGINE_TOKEN to the engine's auth.token\n",
    );
  } finally {
    await engine.stop();
  }
});

Deno.test("engine logs --limit 0 prints no past entries (with --follow, only new ones, as tail -n 0 -f)", async () => {
  assert.equal(parseLogsArgs(["-n", "0", "-f"]).limit, 0);
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  try {
    engine.logs.logger({ source: "engine" }).info("an entry from before");
    const all = await runCli(["logs", "--url", engine.url]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /an entry from before/);
    const none = await runCli(["logs", "-n", "0", "--worker", "engine", "--url", engine.url]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout + none.stderr, "");
  } finally {
    await engine.stop();
  }
});

Deno.test("the README's engine-config.yaml with a port in use names the variable that moves it for one run", async () => {
  // The Quick start says to move a taken port with ENGINE_PORT, ENGINE_HTTP_PORT or
  // ENGINE_CONSOLE_PORT; the file holds no number to change, so the error names the variable.
  const dir = await Deno.makeTempDir({ prefix: "engine-test-" });
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.copyFile(join(ROOT, "engine-config.yaml"), file);
    using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = String(taken.addr.port);
    const hint = (variable: string) =>
      `(the file reads it from ${variable}: ${variable}=<port> moves it for one run)`;

    const engine = await runCli(["--config", file], { env: { ENGINE_PORT: port } });
    assert.equal(engine.code, 1);
    assert.match(
      engine.stderr,
      new RegExp(
        `^Error: ${file}:\\d+:\\d+: port: Cannot listen on 127\\.0\\.0\\.1:${port}: ` +
          `address already in use: stop what uses it, or choose another "port" ` +
          `${escape(hint("ENGINE_PORT"))}\n$`,
      ),
    );

    // The console warns and the engine goes on; engine-http's port stops it.
    const workers = await runCli(["--config", file], {
      env: { ENGINE_PORT: "0", ENGINE_HTTP_PORT: port, ENGINE_CONSOLE_PORT: port },
    });
    assert.equal(workers.code, 1, workers.stdout);
    const lines = workers.stderr.trim().split("\n");
    assert.equal(
      lines[0],
      `Warning: Console cannot listen on 127.0.0.1:${port}: address already in use: the engine ` +
        `runs without its console; choose another "console.port" in the config file ` +
        `${hint("ENGINE_CONSOLE_PORT")}, or set "console.enabled: false"`,
    );
    assert.match(
      lines[1] ?? "",
      new RegExp(
        `^Error: ${file}:\\d+: workers\\[0\\]: Worker "engine-http" failed to start: ` +
          `Cannot listen on 127\\.0\\.0\\.1:${port}: address already in use: stop what uses it, ` +
          `or choose another "port" in its config ${escape(hint("ENGINE_HTTP_PORT"))}$`,
      ),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

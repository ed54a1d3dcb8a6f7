/**
 * `engine --config` and `engine trigger` as a user runs them: real processes.
 */
import assert from "node:assert/strict";
import { ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { freePort } from "../support/ports.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

const MINIMAL = "host: 127.0.0.1\nport: 0\nworkers: []\nconsole:\n  enabled: false\n";

Deno.test("engine --config starts, answers engine trigger, and exits 0 on SIGINT and SIGTERM", async (t) => {
  const { file } = await tempConfig(MINIMAL);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    await t.step(signal, async () => {
      const engine = await spawnEngine({ config: file });
      const worker = await RawWorker.connect(engine.url);
      worker.serve("math::add", (d) => ({ c: (d as { a: number }).a + (d as { b: number }).b }));
      await waitForFunctions(worker, ["math::add"]);
      const env = { ENGINE_URL: engine.url };

      const ok = await runCli(["trigger", "--function-id=math::add", '--payload={"a":2,"b":3}'], {
        env,
      });
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(JSON.parse(ok.stdout), { c: 5 });

      const missing = await runCli(["trigger", "--function-id=math::nope"], { env });
      assert.equal(missing.code, 1);
      assert.equal(
        missing.stderr.trim(),
        "Error: function_not_found: Function math::nope not found\n" +
          'No connected worker registers it ("engine trigger --function-id=engine::functions::list" lists the functions)',
      );

      // A time-out too short for the call is the call's, not an engine that cannot be reached.
      const short = await runCli(["trigger", "--function-id=math::add", "--timeout-ms=1"], { env });
      assert.doesNotMatch(short.stderr, /Cannot reach the engine/);
      assert.ok(short.code === 0 || /within 1ms/.test(short.stderr), short.stderr);

      await worker.close();
      assert.equal(await engine.stop(signal), 0);
      assert.ok(engine.lines.some((l) => l.includes("Engine stopped")));
    });
  }
});

Deno.test("engine trigger reports a function's error code and message on stderr with exit 1", async () => {
  const { file } = await tempConfig(MINIMAL);
  const engine = await spawnEngine({ config: file });
  const worker = await RawWorker.connect(engine.url);
  worker.serve("orders::create", () => {
    throw Object.assign(new Error("customer is blocked"), { code: "FORBIDDEN" });
  });
  await waitForFunctions(worker, ["orders::create"]);
  const r = await runCli(["trigger", "--function-id=orders::create"], {
    env: { ENGINE_URL: engine.url },
  });
  assert.equal(r.code, 1);
  assert.equal(r.stderr.trim(), "Error: FORBIDDEN: customer is blocked");
  assert.equal(r.stdout, "");
  await worker.close();
  await engine.stop();
});

Deno.test("engine trigger of a function that is not there says what to try: the id it is a typo of, a worker still starting", async () => {
  const { dir, file } = await tempConfig(
    `${MINIMAL.replace("workers: []\n", "")}workers:\n  - name: sleeper\n    path: ./sleeper\n`,
  );
  // A local worker that never connects: it stays "still starting".
  await writeLocalWorker(`${dir}/sleeper`, { name: "sleeper", start: "exec sleep 300" });
  const engine = await spawnEngine({ config: file });
  const worker = await RawWorker.connect(engine.url);
  try {
    worker.serve("orders::create", () => ({}));
    await waitForFunctions(worker, ["orders::create"]);
    await engine.waitForLine(/Started worker "sleeper"/);
    const cases: [string, string][] = [
      ["orders::craete", 'Did you mean "orders::create"? ("engine trigger'],
      ["orders::CREATE", 'Did you mean "orders::create"? ("engine trigger'],
      ["math::add", '"sleeper" is still starting: try again in a moment ("engine worker list"'],
    ];
    for (const [id, hint] of cases) {
      const r = await runCli(["trigger", `--function-id=${id}`], {
        env: { ENGINE_URL: engine.url },
      });
      assert.equal(r.code, 1, id);
      const [error, second] = r.stderr.trim().split("\n");
      assert.equal(error, `Error: function_not_found: Function ${id} not found`);
      assert.ok(second?.startsWith(hint), `${id}: ${r.stderr}`);
    }
  } finally {
    await worker.close();
    await engine.stop();
  }
});

Deno.test("engine trigger with bad arguments prints usage and exits 2", async () => {
  const cases: [string[], RegExp][] = [
    [["trigger"], /Missing --function-id/],
    [
      ["trigger", "--function-id=a::b", "--payload={oops"],
      /--payload is not valid JSON: .*position 1/,
    ],
    [["trigger", "--function-id=a::b", "--bogus"], /Error: Unknown option "--bogus"\n/],
    [
      ["trigger", "--functionid=a::b"],
      /Error: Unknown option "--functionid": did you mean "--function-id"\?/,
    ],
    [
      ["trigger", "--function-id=a::b", "--timeout-ms=soon"],
      /--timeout-ms must be a positive whole number/,
    ],
    [["frobnicate"], /Error: Unknown command "frobnicate"\n/],
    [["trgger", "--function-id=a::b"], /Error: Unknown command "trgger": did you mean "trigger"\?/],
    [["--confg", "x.yaml"], /Error: Unknown option "--confg": did you mean "--config"\?/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
    assert.match(r.stderr, /Usage:/);
  }
});

Deno.test("engine trigger and engine logs find the engine of the folder's engine-config.yaml", async () => {
  const port = freePort();
  const { dir, file } = await tempConfig(MINIMAL.replace("port: 0", `port: ${port}`));
  const engine = await spawnEngine({ config: file });
  try {
    // No --url, no ENGINE_URL: the config of the folder the command runs in says where.
    const env = { ENGINE_URL: "", ENGINE_CALLER_DIR: dir };
    const health = await runCli(["trigger", "--function-id=engine::health::check"], {
      cwd: dir,
      env,
    });
    assert.equal(health.code, 0, health.stderr);
    assert.equal(JSON.parse(health.stdout).status, "ok");
    const logs = await runCli(["logs", "-n", "1"], { cwd: dir, env });
    assert.equal(logs.code, 0, logs.stderr);

    // Elsewhere (no config there), the default address: nobody listens on it in this test.
    const elsewhere = await Deno.makeTempDir({ prefix: "engine-test-" });
    const other = await runCli([
      "trigger",
      "--function-id=engine::health::check",
      "--timeout-ms=2000",
    ], {
      cwd: elsewhere,
      env: { ENGINE_URL: "", ENGINE_CALLER_DIR: elsewhere },
    });
    assert.doesNotMatch(other.stderr, new RegExp(`:${port}`));
    await Deno.remove(elsewhere);
  } finally {
    await engine.stop();
  }
});

Deno.test("engine trigger against no engine gives one line naming the URL and exit 1", async () => {
  const port = freePort("0.0.0.0");
  const url = `ws://127.0.0.1:${port}`;
  const r = await runCli(["trigger", "--function-id=a::b"], { env: { ENGINE_URL: url } });
  assert.equal(r.code, 1);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, new RegExp(`^Error: Cannot reach the engine at ${url}`));
});

Deno.test("an invalid config stops start-up with file, line and field, exit 1", async () => {
  const cases: [string, RegExp][] = [
    ["port: 0\nworkers: []\nbogus: 1\n", /engine-config\.yaml:3:1: bogus: /],
    ["port: nope\n", /engine-config\.yaml:1:7: port: /],
    [
      "port: ${UNSET_PORT_FOR_TEST}\n",
      /engine-config\.yaml:1:\d+: port: Environment variable "UNSET_PORT_FOR_TEST" is not set/,
    ],
    [
      "workers:\n  - name: engine-http\n    config:\n      port: -5\n",
      /engine-config\.yaml:4:\d+: workers\[0\]\.config\.port: /,
    ],
    ["workers: [\n", /engine-config\.yaml:\d+:\d+: /],
  ];
  for (const [text, message] of cases) {
    const { file } = await tempConfig(text);
    const r = await runCli(["--config", file]);
    assert.equal(r.code, 1, text);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split("\n").length, 1, `one line: ${r.stderr}`);
  }
  const missing = await runCli(["--config", "/nonexistent/engine-config.yaml"]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /No config file at "\/nonexistent\/engine-config\.yaml": create one with/,
  );
});

Deno.test("engine's start-up errors name the place: a missing file in the caller's folder, a port in use", async () => {
  const dir = await Deno.makeTempDir({ prefix: "engine-test-" });
  try {
    const missing = await runCli(["--config", "engine-config.yaml"], {
      env: { ENGINE_CALLER_DIR: dir },
    });
    assert.equal(missing.code, 1);
    assert.equal(
      missing.stderr.trim(),
      `Error: No config file at "${dir}/engine-config.yaml": create one with ` +
        `"engine create --template quickstart --directory .", or write a file containing "workers: []"`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { file } = await tempConfig(MINIMAL.replace("port: 0", `port: ${taken.addr.port}`));
  const busy = await runCli(["--config", file]);
  assert.equal(busy.code, 1);
  assert.equal(
    busy.stderr.trim(),
    `Error: ${file}:2:7: port: Cannot listen on 127.0.0.1:${taken.addr.port}: address already in use: ` +
      `stop what uses it, or choose another "port"`,
  );
  // A built-in worker's port: the entry's line and index.
  const http = `workers:\n  - name: engine-http\n    config:\n      port: ${taken.addr.port}\n`;
  const withHttp = await tempConfig(MINIMAL.replace("workers: []\n", http));
  const httpBusy = await runCli(["--config", withHttp.file]);
  assert.equal(httpBusy.code, 1);
  assert.equal(
    httpBusy.stderr.trim(),
    `Error: ${withHttp.file}:4: workers[0]: Worker "engine-http" failed to start: Cannot listen on ` +
      `127.0.0.1:${taken.addr.port}: address already in use: stop what uses it, or choose ` +
      `another "port" in its config`,
  );
});

Deno.test("engine whose console port is taken warns, says how to move or turn off the console, and runs on", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const block = `console:\n  port: ${taken.addr.port}\n`;
  const { file } = await tempConfig(MINIMAL.replace("console:\n  enabled: false\n", block));
  const engine = await spawnEngine({ config: file });
  try {
    const line = await engine.waitForLine(/the engine runs without its console/);
    assert.equal(
      line,
      `Warning: Console cannot listen on 127.0.0.1:${taken.addr.port}: address already in use: ` +
        `the engine runs without its console; choose another "console.port" in the config file, ` +
        `or set "console.enabled: false"`,
    );
    const health = await runCli(["trigger", "--function-id=engine::health::check"], {
      env: { ENGINE_URL: engine.url },
    });
    assert.equal(health.code, 0, health.stderr);
  } finally {
    await engine.stop();
  }
});

Deno.test("engine refuses to listen beyond loopback without a token", async () => {
  const { file } = await tempConfig("host: 0.0.0.0\nport: 0\nworkers: []\n");
  const r = await runCli(["--config", file], { env: { ENGINE_TOKEN: "" } });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /engine-config\.yaml:1:7: host: Refusing to accept workers on "0\.0\.0\.0" without a token/,
  );
});

function withoutInitCwd(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  delete env.ENGINE_CALLER_DIR;
  return env;
}

Deno.test("deno task engine resolves paths against the folder it was called from (INIT_CWD)", async () => {
  const { dir } = await tempConfig(MINIMAL);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--config", `${ROOT}deno.json`, "engine", "--config", "engine-config.yaml"],
    cwd: dir,
    // As from a fresh shell: an outer `deno task` (the test runner's) would set INIT_CWD.
    clearEnv: true,
    env: { ...withoutInitCwd(), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("Engine listening on")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  assert.match(out, new RegExp(`config ${dir}/engine-config\\.yaml`));
  child.kill("SIGTERM");
  await reader.cancel();
  await child.stderr.cancel();
  await child.status;
});

Deno.test("engine --help, --version and help for every command", async () => {
  const version = await runCli(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+$/);
  const help = await runCli(["--help"]);
  assert.match(help.stdout, /Commands:/);
  const triggerHelp = await runCli(["trigger", "--help"]);
  assert.match(triggerHelp.stdout, /--function-id <id>/);
});

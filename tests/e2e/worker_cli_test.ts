/**
 * `engine worker add|remove|list` on a config file, without a running
 * engine: real CLI processes, real installs.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../../engine/config/mod.ts";
import { BUILTIN_WORKERS, builtinConfigParsers } from "../../workers/catalog.ts";
import { runCli } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

/** Nothing listens there: the CLI finds no engine. */
const NO_ENGINE = { ENGINE_URL: "ws://127.0.0.1:9" };

const CONFIG = `# My engine's config: hand written.
host: 127.0.0.1   # loopback only
port: 0

workers:
  # The state worker, in memory.
  - name: engine-state
    config:
      adapter: memory   # lost on restart

# No console in tests.
console:
  enabled: false
`;

async function project(config = CONFIG) {
  const dir = await Deno.makeTempDir({ prefix: "worker-cli-test-" });
  const file = `${dir}/engine-config.yaml`;
  await Deno.writeTextFile(file, config);
  const cli = (...args: string[]) =>
    runCli(["worker", ...args, "--config", file], { env: NO_ENGINE });
  return { dir, file, cli, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("engine worker add <folder> adds the worker keeping comments, installs once, then uses the cache", async (t) => {
  const p = await project();
  const folder = await writeLocalWorker(`${p.dir}/workers/counter`, {
    name: "counter",
    install: "echo installing; echo run >> installs.txt",
    start: "exec sleep 300",
    files: { "package-lock.json": "{}\n" },
  });
  const installs = async () =>
    (await Deno.readTextFile(`${folder}/installs.txt`)).split("\n").length - 1;
  const withCounter = CONFIG.replace(
    "      adapter: memory   # lost on restart\n",
    "      adapter: memory   # lost on restart\n  - name: counter\n    path: ./workers/counter\n",
  );
  try {
    await t.step("add: says what it runs, installs, adds {name, path}", async () => {
      // Relative paths and the default config file resolve against the caller's folder.
      const r = await runCli(["worker", "add", "./workers/counter"], {
        env: { ...NO_ENGINE, ENGINE_CALLER_DIR: p.dir },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Worker "counter" \(typescript\) in /);
      assert.ok(
        r.stdout.includes(`Installing: echo installing; echo run >> installs.txt   (in ${folder})`),
      );
      assert.ok(r.stdout.includes(`Install log: ${p.dir}/.engine/installs/counter.log`));
      assert.ok(r.stdout.includes("  │ installing"), "plain progress prints output lines");
      assert.match(r.stdout, /Installed in \d+\.\ds/);
      assert.ok(r.stdout.includes(`Added "counter" to ${p.file} (path ./workers/counter)`));
      assert.ok(r.stdout.includes("The engine runs it with: exec sleep 300"));
      assert.ok(r.stdout.includes("No engine is running at ws://127.0.0.1:9"));
      assert.equal(await Deno.readTextFile(p.file), withCounter);
      assert.equal(await installs(), 1);
    });
    await t.step("add again: says it exists and changes nothing", async () => {
      const r = await p.cli("add", folder);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Worker "counter" is already in .* \(line 10\): nothing changed/);
      assert.equal(await Deno.readTextFile(p.file), withCounter);
      assert.equal(await installs(), 1);
    });
    await t.step("add --force: reinstalls, config unchanged", async () => {
      const r = await p.cli("add", folder, "--force");
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes("Installing: "));
      assert.equal(await Deno.readTextFile(p.file), withCounter);
      assert.equal(await installs(), 2);
    });
    await t.step("remove: the file is back to what it was, byte for byte", async () => {
      const r = await p.cli("remove", "counter");
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(`Removed "counter" from ${p.file}`));
      assert.equal(await Deno.readTextFile(p.file), CONFIG);
    });
    await t.step("add after remove: dependencies unchanged, install skipped", async () => {
      const r = await p.cli("add", folder);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes("Dependencies unchanged since the last install: skipping it"));
      assert.equal(await installs(), 2);
      assert.equal(await Deno.readTextFile(p.file), withCounter);
    });
    await t.step("a changed lock file installs again", async () => {
      await p.cli("remove", "counter");
      await Deno.writeTextFile(`${folder}/package-lock.json`, '{"lockfileVersion": 3}\n');
      const r = await p.cli("add", folder);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await installs(), 3);
    });
    await t.step("list without an engine: the config's workers, stopped", async () => {
      const r = await p.cli("list", "--json");
      assert.equal(r.code, 0, r.stderr);
      const list = JSON.parse(r.stdout);
      assert.equal(list.engine, null);
      assert.deepEqual(
        list.workers.map((w: { name: string; kind: string; status: string; pid: null }) => [
          w.name,
          w.kind,
          w.status,
          w.pid,
        ]),
        [["engine-state", "builtin", "stopped", null], ["counter", "typescript", "stopped", null]],
      );
      const table = await p.cli("list");
      assert.match(table.stdout, /NAME +KIND +STATUS +PID +FUNCTIONS +RESTARTS\n/);
      assert.match(table.stdout, /\ncounter +typescript +stopped +- +- +-/);
    });
  } finally {
    await p.cleanup();
  }
});

Deno.test("engine worker add with a failing install exits 1 with the log's tail and leaves the config untouched", async () => {
  const p = await project();
  const folder = await writeLocalWorker(`${p.dir}/broken`, {
    name: "broken",
    install: "echo resolving; echo 'E404 left-pad@9 not found' >&2; exit 4",
    start: "true",
  });
  try {
    const r = await p.cli("add", folder);
    assert.equal(r.code, 1);
    assert.ok(r.stdout.includes(`Installing: echo resolving;`), r.stdout);
    assert.match(
      r.stderr,
      new RegExp(
        `^Error: The install failed with exit code 4 after \\d+\\.\\ds; ${p.file} is unchanged\\.\\n` +
          `Last lines of ${p.dir}/\\.engine/installs/broken\\.log:\\n`,
      ),
    );
    assert.ok(r.stderr.includes("  │ E404 left-pad@9 not found"));
    assert.equal(await Deno.readTextFile(p.file), CONFIG);
    const again = await p.cli("add", folder);
    assert.equal(again.code, 1, "a failed install is not cached");
  } finally {
    await p.cleanup();
  }
});

Deno.test("engine worker add refuses bad folders and name clashes with a clear error, config untouched", async (t) => {
  const p = await project(CONFIG.replace(
    "# No console",
    "  - name: taken\n    path: ./elsewhere\n\n# No console",
  ));
  const before = await Deno.readTextFile(p.file);
  await Deno.mkdir(`${p.dir}/empty`);
  await writeLocalWorker(`${p.dir}/no-entry`, { name: "no-entry", start: "true" });
  await Deno.remove(`${p.dir}/no-entry/main.ts`);
  await writeLocalWorker(`${p.dir}/clash`, { name: "taken", start: "true" });
  await writeLocalWorker(`${p.dir}/builtin`, { name: "engine-state", start: "true" });
  await writeLocalWorker(`${p.dir}/elsewhere`, { name: "renamed", start: "true" });
  const cases: [string, string, RegExp][] = [
    [
      "a folder without a manifest",
      `${p.dir}/empty`,
      /^Error: No engine\.worker\.yaml in ".*empty"/,
    ],
    [
      "a missing folder",
      `${p.dir}/nope`,
      /^Error: No folder at ".*nope" \(built-in workers: "engine-http"/,
    ],
    ["a bare unknown name", "nope", /^Error: No folder at ".*nope" \(built-in workers: /],
    [
      "a manifest naming a missing entry file",
      `${p.dir}/no-entry`,
      /^Error: .*no-entry\/engine\.worker\.yaml:5:10: runtime\.entry: File "main\.ts" does not exist/,
    ],
    [
      "a name already used with another path",
      `${p.dir}/clash`,
      /^Error: a worker named "taken" is already in .* with path "\.\/elsewhere": rename the worker in .*clash\/engine\.worker\.yaml, or remove the other with "engine worker remove taken"; .* is unchanged/,
    ],
    [
      "the name of a built-in worker",
      `${p.dir}/builtin`,
      /^Error: .*engine\.worker\.yaml: name "engine-state" is the name of a built-in worker: choose another/,
    ],
    [
      "a folder already added under another name",
      `${p.dir}/elsewhere`,
      /^Error: .*elsewhere is already in .* as worker "taken": remove it first/,
    ],
  ];
  try {
    for (const [name, target, message] of cases) {
      await t.step(name, async () => {
        const r = await p.cli("add", target, "--force");
        assert.equal(r.code, 1, r.stdout);
        assert.match(r.stderr, message);
        assert.equal(await Deno.readTextFile(p.file), before);
      });
    }
  } finally {
    await p.cleanup();
  }
});

Deno.test("engine worker add engine-http writes the reference configuration", async () => {
  const p = await project();
  try {
    const r = await p.cli("add", "engine-http");
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.includes(`Added "engine-http" to ${p.file} with its reference configuration`),
    );
    const text = await Deno.readTextFile(p.file);
    assert.ok(text.startsWith(CONFIG.split("\n# No console")[0]!), "the rest is kept");
    const parsed = parseConfig(text, { file: p.file, env: () => undefined });
    assert.ok(parsed.ok);
    const entry = parsed.config.workers.find((w) => w.name === "engine-http");
    assert.deepEqual(entry?.config, BUILTIN_WORKERS["engine-http"]!.defaultConfig);
    assert.ok(
      parseConfig(text, {
        file: p.file,
        env: () => undefined,
        workerConfigs: builtinConfigParsers(),
      })
        .ok,
    );
    const again = await p.cli("add", "engine-http");
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^Worker "engine-http" is already in .*: nothing changed/);
    assert.equal(await Deno.readTextFile(p.file), text);
  } finally {
    await p.cleanup();
  }
});

Deno.test("engine worker with bad arguments prints usage and exits 2", async () => {
  const cases: [string[], RegExp][] = [
    [["worker"], /Missing command: add, remove or list/],
    [["worker", "frob"], /Unknown command "worker frob": use add, remove or list/],
    [["worker", "ad", "x"], /Unknown command "worker ad": did you mean "worker add"\?/],
    [["worker", "add"], /Missing the worker/],
    [["worker", "remove"], /Missing the name of the worker to remove/],
    [["worker", "add", "x", "--bogus"], /Error: Unknown option "--bogus"\n/],
    // Not parseArgs' advice on positionals that start with "-": the option is a typo.
    [["worker", "list", "--jsn"], /Error: Unknown option "--jsn": did you mean "--json"\?\n/],
    [["worker", "list", "--timeout-ms=-1"], /--timeout-ms must be a positive whole number/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env: NO_ENGINE });
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
    assert.ok(r.stderr.includes("Usage:\n  engine worker add"), "prints the worker usage");
  }
  const usage = (await runCli(["worker", "add"], { env: NO_ENGINE })).stderr;
  for (const name of Object.keys(BUILTIN_WORKERS)) {
    assert.ok(usage.includes(`|${name}`), `the usage names ${name}`);
    assert.ok(usage.split("\n")[0]!.includes(name), `the error names ${name}`);
  }
  const missing = await runCli(["worker", "remove", "ghost", "--config", "/nonexistent/x.yaml"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^Error: No config file at "\/nonexistent\/x\.yaml"/);
});

Deno.test("engine worker add and remove on a config file that does not parse name its file, line and problem once", async () => {
  const p = await project("workers: [\n");
  try {
    const cases: [string[], string][] = [[["add", "engine-state"], "add to"], [
      ["remove", "w"],
      "edit",
    ]];
    for (const [args, verb] of cases) {
      const r = await p.cli(...args);
      assert.equal(r.code, 1, args.join(" "));
      assert.equal(
        r.stderr.trim(),
        `Error: Cannot ${verb} an invalid config file: ${p.file}:2:1: Invalid YAML: ` +
          "Flow sequence in block collection must be sufficiently indented and end with a ]",
      );
    }
    assert.equal(await Deno.readTextFile(p.file), "workers: [\n");
  } finally {
    await p.cleanup();
  }
});

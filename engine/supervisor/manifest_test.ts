import assert from "node:assert/strict";
import { ConfigError } from "../config/error.ts";
import { loadManifest, MANIFEST_FILE, parseManifest } from "./manifest.ts";

const FILE = "w/engine.worker.yaml";
const VALID = `name: math
runtime:
  kind: python
  package_manager: uv
  entry: main.py
scripts:
  install: uv sync
  start: uv run main.py
`;

Deno.test("parseManifest() accepts the seed's fields and an env map", () => {
  const result = parseManifest(`${VALID}env:\n  PORT: "8080"\n`, { file: FILE });
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  assert.equal(result.manifest.name, "math");
  assert.equal(result.manifest.runtime.package_manager, "uv");
  assert.equal(result.manifest.scripts.install, "uv sync");
  assert.deepEqual(result.manifest.env, { PORT: "8080" });
});

Deno.test("parseManifest() names the file, line, column and field of each error", async (t) => {
  // [case, text, line, column, field, start of the problem]
  const cases: [string, string, number, number, string, string][] = [
    ["missing name", VALID.replace("name: math\n", ""), 1, 1, "name", "Missing required field"],
    [
      "invalid name",
      VALID.replace("name: math", "name: ../math"),
      1,
      7,
      "name",
      'Invalid worker name "../math"',
    ],
    [
      "unknown top-level key",
      `${VALID}scrpits: {}\n`,
      9,
      1,
      "scrpits",
      "Unknown field",
    ],
    [
      "unknown key under runtime",
      VALID.replace("  entry: main.py", "  entry: main.py\n  entrypoint: x"),
      6,
      3,
      "runtime.entrypoint",
      "Unknown field",
    ],
    [
      "a typo of entry",
      VALID.replace("  entry: main.py", "  entyr: main.py"),
      5,
      3,
      "runtime.entyr",
      'Unknown field: did you mean "entry"? ("entry" is required)',
    ],
    [
      "missing entry",
      VALID.replace("  entry: main.py\n", ""),
      3,
      3,
      "runtime.entry",
      "Missing required field",
    ],
    [
      "missing start script",
      VALID.replace("  start: uv run main.py\n", ""),
      7,
      3,
      "scripts.start",
      "Missing required field",
    ],
    [
      "runtime is a string",
      "name: m\nruntime: python\nscripts:\n  start: x\n",
      2,
      10,
      "runtime",
      'Expected a map, got "python"',
    ],
    [
      "install is a list",
      VALID.replace("install: uv sync", "install: [uv, sync]"),
      7,
      12,
      "scripts.install",
      "Expected a string, got a list",
    ],
    [
      "env value is a number",
      `${VALID}env:\n  PORT: 8080\n`,
      10,
      9,
      "env.PORT",
      'Expected a string, got 8080: quote it, e.g. PORT: "8080"',
    ],
    [
      "env key is not a variable name",
      `${VALID}env:\n  1PORT: "1"\n`,
      10,
      3,
      'env["1PORT"]',
      "Not a valid environment variable name",
    ],
    [
      "env sets ENGINE_URL",
      `${VALID}env:\n  ENGINE_URL: ws://x\n`,
      10,
      3,
      "env.ENGINE_URL",
      '"ENGINE_URL" is set by the engine',
    ],
    ["duplicate key", `${VALID}name: other\n`, 9, 1, "", "Invalid YAML: Map keys must be unique"],
    ["invalid YAML", "name: [a\n", 2, 1, "", "Invalid YAML"],
    ["empty file", "", 1, 1, "", "The manifest is empty"],
    ["a list", "- a\n", 1, 1, "", "Expected a map, got a list"],
  ];
  for (const [name, text, line, column, path, problem] of cases) {
    await t.step(name, () => {
      const result = parseManifest(text, { file: FILE });
      assert.ok(!result.ok, "expected the manifest to be refused");
      const { error } = result;
      assert.ok(error instanceof ConfigError);
      assert.equal(error.file, FILE);
      assert.deepEqual([error.line, error.column, error.path], [line, column, path], error.message);
      assert.ok(error.problem.startsWith(problem), `${error.problem} should start with ${problem}`);
      const place = `${FILE}:${line}:${column}: ${path === "" ? "" : `${path}: `}`;
      assert.ok(error.message.startsWith(place), error.message);
    });
  }
});

Deno.test("parseManifest() reports checkEntry's problem at runtime.entry", () => {
  const result = parseManifest(VALID, { file: FILE, checkEntry: () => "File is missing" });
  assert.ok(!result.ok);
  assert.equal(result.error.message, `${FILE}:5:10: runtime.entry: File is missing`);
});

Deno.test("loadManifest() checks the folder, the manifest and the entry file", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "manifest-test-" });
  try {
    await t.step("a missing folder", async () => {
      await assert.rejects(loadManifest(`${dir}/nope`), /^ConfigError: No folder at ".*nope"$/);
    });
    await t.step("a folder without a manifest", async () => {
      await assert.rejects(
        loadManifest(dir),
        new RegExp(`No ${MANIFEST_FILE} in "${dir}": a worker's folder needs one`),
      );
    });
    await t.step("an entry file that does not exist", async () => {
      await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, VALID);
      await assert.rejects(
        loadManifest(dir),
        (e: Error) =>
          e.message ===
            `${dir}/${MANIFEST_FILE}:5:10: runtime.entry: File "main.py" does not exist in "${dir}"`,
      );
    });
    await t.step("an entry outside the folder", async () => {
      await Deno.writeTextFile(
        `${dir}/${MANIFEST_FILE}`,
        VALID.replace("entry: main.py", "entry: ../x.py"),
      );
      await assert.rejects(
        loadManifest(dir),
        /runtime\.entry: Must be a file inside the worker's folder/,
      );
    });
    await t.step("a valid worker folder", async () => {
      await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, VALID);
      await Deno.writeTextFile(`${dir}/main.py`, "print('hi')\n");
      const loaded = await loadManifest(dir);
      assert.equal(loaded.manifest.name, "math");
      assert.equal(loaded.folder, dir);
      assert.equal(loaded.text, VALID);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { ConfigError } from "./error.ts";
import { loadConfigFile } from "./load.ts";

Deno.test("loadConfigFile() reads and parses the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(file, "port: ${TEST_PORT:4000}\nworkers: []\n");
    const result = await loadConfigFile(file, { env: () => undefined });
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    assert.equal(result.config.port, 4000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfigFile() names the file in a parse error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(file, "workers: []\nportt: 1\n");
    const result = await loadConfigFile(file, { env: () => undefined });
    assert.ok(!result.ok);
    assert.equal(result.error.message, `${file}:2:1: portt: Unknown field: did you mean "port"?`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadConfigFile() says how to create a missing file", async () => {
  const result = await loadConfigFile("no-such-dir/engine-config.yaml");
  assert.ok(!result.ok);
  assert.ok(result.error instanceof ConfigError);
  assert.equal(result.error.file, "no-such-dir/engine-config.yaml");
  assert.equal(result.error.line, 0);
  assert.equal(
    result.error.message,
    `No config file at "${resolve("no-such-dir/engine-config.yaml")}": create one with ` +
      `"engine create --template quickstart --directory no-such-dir", ` +
      `or write a file containing "workers: []"`,
  );
});

Deno.test("loadConfigFile() suggests a folder relative to the caller's folder, and engine create only for its file name", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    const cases: [string, string][] = [
      [
        "engine-config.yaml",
        `create one with "engine create --template quickstart --directory .", ` +
        `or write a file containing "workers: []"`,
      ],
      [
        "sub/engine-config.yaml",
        `create one with "engine create --template quickstart --directory sub", ` +
        `or write a file containing "workers: []"`,
      ],
      ["other.yaml", `write one containing "workers: []"`],
    ];
    for (const [path, fix] of cases) {
      const result = await loadConfigFile(path, { cwd });
      assert.ok(!result.ok, path);
      assert.equal(result.error.message, `No config file at "${join(cwd, path)}": ${fix}`);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("loadConfigFile() reads a relative path from the given folder", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(cwd, "engine-config.yaml"), "port: 4001\n");
    const result = await loadConfigFile("engine-config.yaml", { cwd, env: () => undefined });
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    assert.equal(result.config.port, 4001);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("loadConfigFile() reports a file it cannot read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const result = await loadConfigFile(dir);
    assert.ok(!result.ok);
    assert.equal(
      result.error.message,
      `"${dir}" is a folder, not a config file: name the file, e.g. --config ` +
        `${join(dir, "engine-config.yaml")}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

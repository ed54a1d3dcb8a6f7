import assert from "node:assert/strict";
import { readEngineRecord, recordFile, writeEngineRecord } from "./engine_record.ts";

async function withConfig(fn: (file: string, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "engine-record-" }));
  const file = `${dir}/engine-config.yaml`;
  await Deno.writeTextFile(file, "workers: []\n");
  try {
    await fn(file, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("writeEngineRecord() records the URL beside the config, and its undo removes it", async () => {
  await withConfig(async (file, dir) => {
    const undo = await writeEngineRecord(file, "ws://127.0.0.1:4321");
    assert.equal(await recordFile(file), `${dir}/.engine/listening/engine-config.yaml.json`);
    assert.deepEqual(await readEngineRecord(file), {
      url: "ws://127.0.0.1:4321",
      pid: Deno.pid,
      config: file,
    });
    await undo();
    assert.equal(await readEngineRecord(file), undefined);
    assert.deepEqual([...Deno.readDirSync(`${dir}/.engine/listening`)], [], "no file left");
  });
});

Deno.test("writeEngineRecord()'s undo leaves the record of an engine of the same file started since", async () => {
  await withConfig(async (file) => {
    const undo = await writeEngineRecord(file, "ws://127.0.0.1:4321");
    const other = { url: "ws://127.0.0.1:4322", pid: Deno.pid + 1, config: file };
    await Deno.writeTextFile((await recordFile(file))!, JSON.stringify(other));
    await undo();
    assert.deepEqual(await readEngineRecord(file), other);
  });
});

Deno.test("writeEngineRecord() of a config file that is not there records nothing", async () => {
  await withConfig(async (file, dir) => {
    const undo = await writeEngineRecord(`${dir}/missing.yaml`, "ws://127.0.0.1:4321");
    await undo();
    assert.equal(await readEngineRecord(`${dir}/missing.yaml`), undefined);
    assert.equal(await readEngineRecord(file), undefined);
  });
});

Deno.test("readEngineRecord() ignores a record it cannot use", async () => {
  const cases: [string, string][] = [
    ["not JSON", "ws://127.0.0.1:4321"],
    ["half written", '{"url": "ws://127.0.0.1:4321", "pid"'],
    ["not a WebSocket URL", '{"url": "http://127.0.0.1:4321", "pid": 1, "config": "/c"}'],
    ["no pid", '{"url": "ws://127.0.0.1:4321", "config": "/c"}'],
    ["null", "null"],
  ];
  await withConfig(async (file) => {
    const path = (await recordFile(file))!;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    for (const [what, text] of cases) {
      await Deno.writeTextFile(path, text);
      assert.equal(await readEngineRecord(file), undefined, what);
    }
  });
});

Deno.test("writeEngineRecord() records when the engine read its config file, for the CLI", async () => {
  await withConfig(async (file) => {
    const undo = await writeEngineRecord(file, "ws://127.0.0.1:4321", 1_700_000_000_000);
    assert.equal((await readEngineRecord(file))?.started, 1_700_000_000_000);
    await undo();
  });
});

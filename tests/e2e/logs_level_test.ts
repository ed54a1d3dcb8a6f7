/**
 * `logs.level` on a real engine process: entries below it are not printed,
 * and stay in the log store (`engine logs`, the console); an edit of
 * `logs.level` or `logs.format` applies to the next line with no restart
 * and no "takes effect when the engine restarts" warning; an invalid value
 * is refused naming the file, line, field and the values allowed, at
 * start-up (exit 1) and on a live edit (the engine runs on).
 */
import assert from "node:assert/strict";
import { EngineClient } from "../../cli/engine_url.ts";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";

const BASE = "port: 0\nconsole:\n  enabled: false\n";

Deno.test("logs.level hides lower entries from the output but not from the store, and an edit applies it live", async () => {
  const { file } = await tempConfig(`${BASE}logs:\n  level: info\n`);
  const engine = await spawnEngine({ config: file });
  let client: EngineClient | undefined;
  try {
    client = await EngineClient.connect(engine.url, { name: "logs-level-test" });
    const write = (level: string, message: string) =>
      client!.call(`engine::log::${level}`, { message });
    // Printed in the order written: once the info line is out, the debug one would be too.
    await write("debug", "hidden debug entry");
    await write("info", "shown info entry");
    await engine.waitForLine(/ INFO {2}\[.*\] shown info entry$/);
    assert.equal(engine.lines.some((l) => l.includes("hidden debug entry")), false);
    const stored = await runCli(["logs", "--level", "debug", "--url", engine.url]);
    assert.equal(stored.code, 0, stored.stderr);
    assert.match(stored.stdout, / DEBUG \[.*\] hidden debug entry\n/);

    // Live: debug and JSON from the reload on, without a restart warning.
    const from = engine.lines.length;
    await Deno.writeTextFile(file, `${BASE}logs:\n  level: debug\n  format: json\n`);
    await engine.waitForLine(/^\{.*"message":"Config reloaded/);
    await write("debug", "debug entry after the edit");
    const debug = await engine.waitForLine(/debug entry after the edit/);
    assert.equal(JSON.parse(debug).level, "debug");
    assert.equal(engine.lines.slice(from).some((l) => /restart/.test(l)), false);

    // An invalid edit is refused naming the field and the values; the engine keeps debug.
    await Deno.writeTextFile(file, `${BASE}logs:\n  level: loud\n  format: json\n`);
    const refused = JSON.parse(await engine.waitForLine(/Config change ignored/));
    assert.equal(refused.level, "error");
    assert.match(
      refused.message,
      /engine-config\.yaml:5:10: logs\.level: Expected one of "debug", "info", "warn", "error", got "loud"/,
    );
    await write("debug", "debug entry after the refused edit");
    await engine.waitForLine(/"level":"debug".*debug entry after the refused edit/);

    // warn: an info entry is hidden, a warn entry printed.
    await Deno.writeTextFile(file, `${BASE}logs:\n  level: warn\n  format: text\n`);
    await engine.waitForLine(/Config file .* is valid again/);
    await write("info", "info entry at warn");
    await write("warn", "warn entry at warn");
    await engine.waitForLine(/ WARN {2}\[.*\] warn entry at warn$/);
    assert.equal(engine.lines.some((l) => l.includes("info entry at warn")), false);
  } finally {
    await client?.close();
    await engine.stop();
  }
});

Deno.test("an invalid logs.level or logs.format stops start-up naming the file, line, field and values", async () => {
  const cases: [logs: string, error: string][] = [
    [
      "level: verbose",
      `:5:10: logs.level: Expected one of "debug", "info", "warn", "error", got "verbose"`,
    ],
    ["format: xml", `:5:11: logs.format: Expected "text" or "json", got "xml"`],
    [
      "level: INFO",
      `:5:10: logs.level: Expected one of "debug", "info", "warn", "error", got "INFO"`,
    ],
  ];
  for (const [logs, error] of cases) {
    const { file } = await tempConfig(`${BASE}logs:\n  ${logs}\n`);
    const run = await runCli(["--config", file]);
    assert.equal(run.code, 1, `${logs}: ${run.stdout}${run.stderr}`);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, `Error: ${file}${error}\n`);
  }
});

/**
 * `logs.format: json` on a real engine process: every line it prints, log
 * entries and its own lines ("Engine listening on …", "Started worker …",
 * "Engine stopped") alike, is one JSON object with the time in ISO 8601
 * (UTC), the level, the source and the message, and an entry's worker,
 * function, trace and span ids and data when it has them; `engine logs
 * --json` prints the stored entries the same way.
 */
import assert from "node:assert/strict";
import { EngineClient } from "../../cli/engine_url.ts";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const KEYS = ["time", "level", "source", "worker", "function", "trace_id", "span_id", "message"];

/** `line` parsed, after checking it is one JSON object with the fields every line has. */
function parseLine(line: string): Record<string, unknown> {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line);
  } catch {
    assert.fail(`Not a line of JSON: ${line}`);
  }
  assert.match(String(parsed.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
  assert.ok(["debug", "info", "warn", "error"].includes(String(parsed.level)), line);
  assert.equal(typeof parsed.source, "string", line);
  assert.equal(typeof parsed.message, "string", line);
  for (const key of Object.keys(parsed)) {
    assert.ok([...KEYS, "data"].includes(key), `unexpected field ${key}: ${line}`);
  }
  return parsed;
}

Deno.test("with logs.format json every line the engine prints is a JSON object, and engine logs --json prints entries alike", async () => {
  const { file } = await tempConfig(
    "port: 0\nconsole:\n  port: 0\nlogs:\n  format: json\n  level: debug\n" +
      "workers:\n  - name: engine-queue\n",
  );
  const engine = await spawnEngine({ config: file });
  let client: EngineClient | undefined;
  try {
    client = await EngineClient.connect(engine.url, { name: "logs-format-test" });
    await client.call("engine::log::info", {
      message: "first line\nsecond line",
      data: { count: 1, text: "a\nb" },
      function_id: "math::add",
      trace_id: TRACE,
      span_id: SPAN,
    });
    await client.call("engine::log::debug", { message: "a debug entry" });
    await engine.waitForLine(/a debug entry/);

    const listed = await runCli(["logs", "--json", "--trace", TRACE, "--url", engine.url]);
    assert.equal(listed.code, 0, listed.stderr);
    const stored = listed.stdout.trimEnd().split("\n").map(parseLine);
    assert.equal(stored.length, 1, listed.stdout);
    const { time: _, ...entry } = stored[0]!;
    assert.deepEqual(entry, {
      level: "info",
      source: entry.worker,
      worker: entry.worker,
      function: "math::add",
      trace_id: TRACE,
      span_id: SPAN,
      message: "first line\nsecond line",
      data: { count: 1, text: "a\nb" },
    });
    assert.equal(typeof entry.worker, "string");

    await client.close();
    client = undefined;
    assert.equal(await engine.stop(), 0);
    const printed = engine.lines.filter((l) => l !== "").map(parseLine);
    const messages = printed.map((p) => p.message);
    assert.match(String(messages[0]), /^Engine listening on ws:\/\/127\.0\.0\.1:\d+ \(config /);
    for (
      const own of [/^Console on http:/, /^Started worker engine-queue/, /^Engine stopped$/]
    ) {
      assert.ok(messages.some((m) => own.test(String(m))), `${own}: ${engine.lines.join("\n")}`);
    }
    // The entry printed is the entry stored, time included; the debug one is printed at debug.
    assert.deepEqual(printed.find((p) => p.trace_id === TRACE), stored[0]);
    assert.equal(printed.find((p) => p.message === "a debug entry")?.level, "debug");
    // An entry of a built-in worker with data.
    assert.ok(printed.some((p) => p.source === "engine-queue" && p.data !== undefined));
  } finally {
    await client?.close();
    await engine.stop("SIGKILL");
  }
});

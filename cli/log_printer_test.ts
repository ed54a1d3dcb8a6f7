import assert from "node:assert/strict";
import type { LogEntry } from "../engine/api.ts";
import { formatLogJson, LogStore } from "../engine/observability/logs.ts";
import { LogPrinter, type LogSettings } from "./log_printer.ts";

/** A printer over lines kept in `out` and `err`, with settings the test changes. */
function printer(settings: LogSettings) {
  const out: string[] = [];
  const err: string[] = [];
  const printer = new LogPrinter(
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    () => settings,
  );
  return { printer, out, err, settings };
}

const ENTRY: LogEntry = {
  time: Date.UTC(2025, 0, 2, 3, 4, 5, 6),
  level: "warn",
  source: "math",
  worker: "math",
  function: "math::add",
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  message: "two\nlines",
  data: { a: 1, nested: { text: "x\ny" } },
};

Deno.test("formatLogJson() gives one line of JSON with every field the entry has", () => {
  const line = formatLogJson(ENTRY);
  assert.equal(line.includes("\n"), false);
  assert.deepEqual(JSON.parse(line), {
    time: "2025-01-02T03:04:05.006Z",
    level: "warn",
    source: "math",
    worker: "math",
    function: "math::add",
    trace_id: "0af7651916cd43dd8448eb211c80319c",
    span_id: "b7ad6b7169203331",
    message: "two\nlines",
    data: { a: 1, nested: { text: "x\ny" } },
  });
  // Fields the entry lacks are left out, not null.
  assert.deepEqual(
    Object.keys(JSON.parse(formatLogJson({ time: 0, level: "info", source: "e", message: "m" }))),
    ["time", "level", "source", "message"],
  );
});

Deno.test("formatLogJson() gives data JSON cannot hold as text, and a time no date holds as its number", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const cases: [LogEntry, Record<string, unknown>][] = [
    [{ time: 0, level: "info", source: "e", message: "m", data: 10n }, { data: "10" }],
    [{ time: 0, level: "info", source: "e", message: "m", data: cycle }, {
      data: "[object Object]",
    }],
    [{ time: 1e20, level: "info", source: "e", message: "m" }, { time: "100000000000000000000" }],
  ];
  for (const [entry, expected] of cases) {
    const parsed = JSON.parse(formatLogJson(entry));
    for (const [key, value] of Object.entries(expected)) assert.equal(parsed[key], value, key);
  }
});

Deno.test("LogPrinter prints entries at or above the level, in the format, as the settings are now", () => {
  const { printer: p, out, settings } = printer({ level: "info", format: "text" });
  const at = (level: LogEntry["level"]): LogEntry => ({ ...ENTRY, level, message: level });
  for (const level of ["debug", "info", "warn", "error"] as const) p.entry(at(level));
  assert.deepEqual(out.map((l) => / (\w+)$/.exec(l.split(" {")[0]!)?.[1]), [
    "info",
    "warn",
    "error",
  ]);
  out.length = 0;
  settings.level = "debug";
  settings.format = "json";
  p.entry(at("debug"));
  settings.level = "error";
  p.entry(at("warn"));
  assert.equal(out.length, 1);
  assert.equal(JSON.parse(out[0]!).level, "debug");
  // follow() replaces where the settings come from (the config of the last reload).
  p.follow(() => ({ level: "warn", format: "text" }));
  p.entry(at("warn"));
  assert.match(out[1]!, /^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[math math::add\] warn /);
});

Deno.test("LogPrinter.io gives the engine's own lines as entries in JSON, and as they are in text", () => {
  const { printer: p, out, err, settings } = printer({ level: "error", format: "json" });
  p.io.out("Engine listening on ws://127.0.0.1:1 (config f.yaml)");
  p.io.err("Error: Worker failed");
  const listening = JSON.parse(out[0]!);
  assert.equal(listening.level, "info"); // printed at any logs.level: it is not a log entry
  assert.equal(listening.source, "engine");
  assert.equal(listening.message, "Engine listening on ws://127.0.0.1:1 (config f.yaml)");
  assert.match(listening.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual([JSON.parse(err[0]!).level, JSON.parse(err[0]!).message], [
    "error",
    "Worker failed",
  ]);
  settings.format = "text";
  p.io.out("Engine stopped");
  p.io.err("Error: Worker failed");
  assert.deepEqual([out[1], err[1]], ["Engine stopped", "Error: Worker failed"]);
});

Deno.test("LogStore.sinkLevel is the lowest level the sink is given, and can be lowered", () => {
  const seen: string[] = [];
  const store = new LogStore({ sink: (e) => seen.push(e.level) });
  assert.equal(store.sinkLevel, "info");
  const log = store.logger();
  log.debug("hidden");
  store.sinkLevel = "debug";
  log.debug("shown");
  assert.deepEqual(seen, ["debug"]);
  assert.equal(store.query().length, 2); // the store keeps every level
});

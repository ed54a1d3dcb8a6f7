/**
 * What `engine start` prints on standard output, as `logs.level` and
 * `logs.format` say: the log entries at or above the level, as text lines
 * or JSON lines, and in JSON its own lines too ("Engine listening on …",
 * "Console on …", an error on standard error), so that a log collector
 * reads every line alike. The settings are read at each line: a config
 * edit applies to the next one, with no restart.
 *
 * Errors before the config file is read (a missing file, an invalid one)
 * cannot know the format: they stay plain text on standard error.
 *
 * @module
 */
import type { LogEntry, LogLevel } from "../engine/api.ts";
import type { LogFormat } from "../engine/config/schema.ts";
import { formatLogEntry, formatLogJson } from "../engine/observability/logs.ts";
import type { Io } from "./trigger.ts";

/** The `logs` fields the printer follows. */
export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export class LogPrinter {
  #out: Io;
  #settings: () => LogSettings;
  /**
   * `out` with its lines made log entries of source `engine` in JSON, `info`
   * on standard output and `error` (without the `Error: ` prefix) on standard
   * error; as they are in text.
   */
  readonly io: Io;

  constructor(out: Io, settings: () => LogSettings) {
    this.#out = out;
    this.#settings = settings;
    this.io = {
      out: (line) => out.out(this.#line("info", line)),
      err: (line) => out.err(this.#line("error", line.replace(/^Error: /, ""), line)),
      ...(out.outClosed ? { outClosed: out.outClosed } : {}),
    };
  }

  /** Reads the settings from `settings` from now on (the config of the last reload). */
  follow(settings: () => LogSettings): void {
    this.#settings = settings;
  }

  /** The engine's log sink: prints `entry` when its level is printed. */
  readonly entry = (entry: LogEntry): void => {
    const { level, format } = this.#settings();
    if (RANK[entry.level] < RANK[level]) return;
    this.#out.out(format === "json" ? formatLogJson(entry) : formatLogEntry(entry));
  };

  #line(level: LogLevel, message: string, text = message): string {
    if (this.#settings().format !== "json") return text;
    return formatLogJson({ time: Date.now(), level, source: "engine", message });
  }
}

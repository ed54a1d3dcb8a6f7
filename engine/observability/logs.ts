/**
 * The engine's one log: its own events, worker `Logger` calls, supervised
 * workers' output, HTTP warnings. Kept in a bounded ring, echoed to a sink
 * (the terminal) in a readable form.
 *
 * @module
 */
import type { LogEntry, Logger, LogLevel } from "../api.ts";
import { cutFields, cutText, MAX_MESSAGE } from "./cut.ts";
import { REDACTED, redactor } from "./redact.ts";
import { Ring } from "./ring.ts";

const LOG_NAMES = ["source", "worker", "function", "traceId", "spanId"] as const;

/** Shortest secret value a message is searched for. */
export const MIN_SECRET = 6;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogQuery {
  level?: LogLevel;
  worker?: string;
  function?: string;
  traceId?: string;
  text?: string;
  limit?: number;
}

export class LogStore {
  readonly ring: Ring<LogEntry>;
  #sink: ((entry: LogEntry) => void) | undefined;
  #minSinkLevel: number;
  #redact: (value: unknown) => unknown;
  #secrets: readonly string[] = [];

  constructor(
    options: {
      capacity?: number;
      sink?: (entry: LogEntry) => void;
      sinkLevel?: LogLevel;
      /** Keys redacted in `data` besides the usual secrets (see `redact.ts`). */
      redact?: readonly string[];
      /** Values replaced wherever a message holds them (the engine's tokens); see {@linkcode LogStore.useSecrets}. */
      secrets?: readonly (string | undefined)[];
    } = {},
  ) {
    this.ring = new Ring(options.capacity ?? 10_000);
    this.#redact = redactor(options.redact);
    this.#sink = options.sink;
    this.#minSinkLevel = LEVELS[options.sinkLevel ?? "info"];
    if (options.secrets) this.useSecrets(options.secrets);
  }

  /** The lowest level handed to the sink (`info` unless the constructor says otherwise). */
  get sinkLevel(): LogLevel {
    return (Object.keys(LEVELS) as LogLevel[]).find((l) => LEVELS[l] === this.#minSinkLevel)!;
  }

  set sinkLevel(level: LogLevel) {
    this.#minSinkLevel = LEVELS[level];
  }

  /**
   * Secret values (the engine's own tokens) replaced by `"[redacted]"`
   * wherever a message holds them: a worker that prints its environment
   * (`ENGINE_TOKEN=…`) must not put the token in the log, the console or
   * the terminal. Values shorter than {@linkcode MIN_SECRET} are left alone
   * (they would mask ordinary words).
   */
  useSecrets(values: readonly (string | undefined)[]): void {
    this.#secrets = values.filter((v): v is string => v !== undefined && v.length >= MIN_SECRET);
  }

  /** Stores `entry` (cut and redacted); returns the entry as stored. */
  write(entry: LogEntry): LogEntry {
    if (entry.message.length > MAX_MESSAGE) {
      entry = { ...entry, message: cutText(entry.message, MAX_MESSAGE) };
    }
    for (const secret of this.#secrets) {
      if (entry.message.includes(secret)) {
        entry = { ...entry, message: entry.message.replaceAll(secret, REDACTED) };
      }
    }
    // Names and ids come from workers too (an OTLP frame's service.name, trace id).
    entry = cutFields(entry, LOG_NAMES);
    if (entry.data !== undefined) {
      const data = this.#redact(entry.data);
      if (data !== entry.data) entry = { ...entry, data };
    }
    this.ring.push(entry);
    if (this.#sink && LEVELS[entry.level] >= this.#minSinkLevel) this.#sink(entry);
    return entry;
  }

  query(q: LogQuery = {}): LogEntry[] {
    const out = this.ring.toArray().filter((e) => matches(e, q));
    return q.limit !== undefined ? out.slice(-q.limit) : out;
  }

  logger(fields: Partial<Omit<LogEntry, "time" | "level" | "message">> = {}): Logger {
    const source = fields.source ?? "engine";
    const write = (level: LogLevel, message: string, data?: unknown) => {
      const entry: LogEntry = { ...fields, source, time: Date.now(), level, message };
      if (data !== undefined) entry.data = data;
      this.write(entry);
    };
    return {
      debug: (m, d) => write("debug", m, d),
      info: (m, d) => write("info", m, d),
      warn: (m, d) => write("warn", m, d),
      error: (m, d) => write("error", m, d),
      child: (more) => this.logger({ ...fields, ...more }),
    };
  }
}

export function matches(e: LogEntry, q: LogQuery): boolean {
  if (q.level && LEVELS[e.level] < LEVELS[q.level]) return false;
  if (q.worker && e.worker !== q.worker && e.source !== q.worker) return false;
  if (q.function && e.function !== q.function) return false;
  if (q.traceId && e.traceId !== q.traceId) return false;
  if (q.text) {
    const needle = q.text.toLowerCase();
    const hay = `${e.message} ${e.data === undefined ? "" : JSON.stringify(e.data)}`;
    if (!hay.toLowerCase().includes(needle)) return false;
  }
  return true;
}

/** `12:03:04.123 INFO  [engine] message {data}` */
export function formatLogEntry(e: LogEntry): string {
  const t = isoTime(e.time).slice(11, 23);
  const who = e.function ? `${e.source} ${e.function}` : e.source;
  const data = e.data === undefined ? "" : ` ${safeJson(e.data)}`;
  return `${t} ${e.level.toUpperCase().padEnd(5)} [${who}] ${e.message}${data}`;
}

/**
 * An entry as one line of JSON, for log collectors: `time` (ISO 8601, UTC),
 * `level`, `source`, then `worker`, `function`, `trace_id` and `span_id` when
 * the entry has them, `message`, and `data` when it has some. A newline in
 * a message or in data is escaped, so an entry is always one line.
 *
 * @example
 * ```ts
 * import { formatLogJson } from "./logs.ts";
 * formatLogJson({ time: 0, level: "info", source: "engine", message: "hi" });
 * // {"time":"1970-01-01T00:00:00.000Z","level":"info","source":"engine","message":"hi"}
 * ```
 */
export function formatLogJson(e: LogEntry): string {
  const line: Record<string, unknown> = {
    time: isoTime(e.time),
    level: e.level,
    source: e.source,
  };
  if (e.worker !== undefined) line.worker = e.worker;
  if (e.function !== undefined) line.function = e.function;
  if (e.traceId !== undefined) line.trace_id = e.traceId;
  if (e.spanId !== undefined) line.span_id = e.spanId;
  line.message = e.message;
  if (e.data === undefined) return JSON.stringify(line);
  line.data = e.data;
  try {
    return JSON.stringify(line);
  } catch {
    // Data JSON cannot hold (a cycle, a bigint) is given as text.
    line.data = String(e.data);
    return JSON.stringify(line);
  }
}

/** `time` as ISO 8601 (UTC); a time no date can hold (a worker's, from OTLP) as its number. */
function isoTime(time: number): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(time) : date.toISOString();
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * `engine logs [--follow] [--worker NAME] [--level LEVEL] [--trace ID] [--trace-ids] [--json] [--limit N]`:
 * prints the log of a running engine, one readable line per entry (with
 * `--trace-ids`, an entry of a trace ends with ` trace=<id>`; without it,
 * lines stay as scripts match them), or with `--json` one JSON object per
 * entry, as the engine prints with `logs.format: json`; with
 * `--follow` it keeps printing new entries (through an `engine::events`
 * trigger) until SIGINT or SIGTERM, or until the engine goes away, as
 * `docker logs -f` ends with its container: then one line on standard
 * error says so, and the exit code is 1. It does not wait for an engine to
 * come back: a restarted engine starts a new log, and what it wrote before
 * a reconnect would be missing without a word.
 *
 * @module
 */
import type { LogEntry, LogLevel } from "../engine/api.ts";
import type { EventBatch } from "../engine/events.ts";
import { formatLogEntry, formatLogJson } from "../engine/observability/logs.ts";
import { parseCommandArgs, parseUrlOption } from "./args.ts";
import { callerEngineUrl } from "./caller_engine.ts";
import { EngineClient, EngineUnreachable, FunctionFailed } from "./engine_url.ts";
import { stopSignal } from "./signals.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export interface LogsArgs {
  follow: boolean;
  worker?: string;
  level?: LogLevel;
  /** Only the entries of this trace. */
  trace?: string;
  /** End the line of an entry in a trace with ` trace=<id>`. */
  traceIds: boolean;
  /** One JSON object per entry ({@linkcode formatLogJson}), which holds the trace id. */
  json: boolean;
  limit: number;
  url?: string;
}

export function parseLogsArgs(args: string[]): LogsArgs {
  const { values } = parseCommandArgs("logs", {
    args,
    options: {
      follow: { type: "boolean", short: "f" },
      worker: { type: "string", short: "w" },
      level: { type: "string", short: "l" },
      trace: { type: "string", short: "t" },
      "trace-ids": { type: "boolean" },
      json: { type: "boolean" },
      limit: { type: "string", short: "n" },
      url: { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
  const level = values.level?.toLowerCase();
  if (level !== undefined && !LEVELS.includes(level as LogLevel)) {
    throw new UsageError(
      `--level must be one of ${LEVELS.join(", ")}: got "${values.level}"`,
      "logs",
    );
  }
  const limit = Number(values.limit ?? 100);
  if (!Number.isInteger(limit) || limit < 0 || limit > 100_000) {
    throw new UsageError(
      `--limit must be a whole number from 0 to 100000: got "${values.limit}"`,
      "logs",
    );
  }
  return {
    follow: values.follow ?? false,
    ...(values.worker ? { worker: values.worker } : {}),
    ...(level ? { level: level as LogLevel } : {}),
    ...(values.trace ? { trace: values.trace.trim().toLowerCase() } : {}),
    traceIds: values["trace-ids"] ?? false,
    json: values.json ?? false,
    limit,
    ...(values.url ? { url: parseUrlOption(values.url, "logs")! } : {}),
  };
}

const keyOf = (e: LogEntry) => `${e.time}\u0000${e.source}\u0000${e.message}`;

/**
 * An entry's line: {@link formatLogEntry}'s, and with `traceIds` an entry of
 * a trace ends with ` trace=<id>` (for `engine logs --trace <id>` and the
 * console's `/traces/<id>`). Opt-in: a suffix would break scripts matching
 * a line's end.
 */
export function logLine(e: LogEntry, traceIds: boolean): string {
  const text = formatLogEntry(e);
  return traceIds && e.traceId ? `${text} trace=${e.traceId}` : text;
}

export async function logs(args: string[], io: Io): Promise<number> {
  const parsed = parseLogsArgs(args);
  const options = { ...parsed, url: await callerEngineUrl(parsed.url) };
  const line = options.json ? formatLogJson : (e: LogEntry) => logLine(e, options.traceIds);
  let client: EngineClient;
  try {
    client = await EngineClient.connect(options.url, { name: "engine-logs" });
  } catch (e) {
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  }
  try {
    // Listen first, list second: nothing written in between is lost.
    let live = false;
    const waiting: LogEntry[] = [];
    if (options.follow) {
      // On this connection, the CLI's: a second one, a worker's, was listed as a worker.
      client.listen("engine-logs", {
        type: "engine::events",
        config: {
          kinds: ["log"],
          ...(options.level ? { level: options.level } : {}),
          ...(options.worker ? { worker: options.worker } : {}),
        },
      }, (payload) => {
        const batch = payload as EventBatch;
        if (batch.dropped > 0) {
          io.err(`… ${batch.dropped} entries dropped: this terminal fell behind`);
        }
        for (const e of batch.events) {
          if (e.kind !== "log") continue;
          if (options.trace && e.log.traceId !== options.trace) continue;
          if (live) io.out(line(e.log));
          else waiting.push(e.log);
        }
        return null;
      });
      await client.call("engine::health::check", {}); // the listener is active once this answers
    }
    // --limit 0: no past entries (with --follow, only the new ones, as tail -n 0 -f).
    const { logs: entries } = options.limit === 0 ? { logs: [] } : await client.call(
      "engine::logs::list",
      {
        ...(options.level ? { level: options.level } : {}),
        ...(options.worker ? { worker: options.worker } : {}),
        ...(options.trace ? { trace_id: options.trace } : {}),
        limit: options.limit,
      },
    ) as { logs: LogEntry[] };
    for (const e of entries) io.out(line(e));
    if (options.worker && entries.length === 0 && options.limit > 0) {
      await noteUnknownWorker(client, options, io);
    }
    if (!options.follow) return 0;
    const printed = new Set(entries.map(keyOf));
    for (const e of waiting) if (!printed.has(keyOf(e))) io.out(line(e));
    live = true;
    // Until Ctrl-C, or until the reader of the output went away (`engine logs -f | head -1`),
    // or until the engine went away.
    const gone = await Promise.race([
      stopSignal().then(() => undefined),
      io.outClosed?.then(() => undefined) ?? new Promise<never>(() => {}),
      client.closed,
    ]);
    if (gone === undefined) return 0;
    // Without a closing handshake (a killed engine, a lost network) the code is 1006, or 0.
    const why = gone.code === 0 || gone.code === 1006
      ? "connection lost"
      : `it closed the connection: code ${gone.code}${gone.reason ? `, ${gone.reason}` : ""}`;
    io.err(`Error: The engine at ${options.url} went away (${why}): no more entries to follow`);
    return 1;
  } catch (e) {
    if (e instanceof FunctionFailed) io.err(`Error: ${e.body.code}: ${e.body.message}`);
    else if (e instanceof EngineUnreachable) io.err(`Error: ${e.message}`);
    else io.err(`Error: ${(e as Error).message}`);
    return 1;
  } finally {
    await client.close();
  }
}

/** Says so on stderr when the worker a filter names has no entries and is not connected. */
async function noteUnknownWorker(
  client: EngineClient,
  options: { worker?: string; follow: boolean },
  io: Io,
): Promise<void> {
  const { workers } = await client.call("engine::workers::list", {}) as {
    workers: { name?: unknown }[];
  };
  const names = workers.map((w) => w.name).filter((n): n is string => typeof n === "string");
  if (names.includes(options.worker!)) return;
  io.err(
    `No log entries from "${options.worker}", and no worker of that name is connected` +
      (names.length > 0 ? ` (connected: ${names.sort().join(", ")})` : "") +
      (options.follow ? ": waiting for its entries" : ""),
  );
}

/**
 * `engine [--config <file>]`: loads the config, starts the engine and its
 * workers, prints where it listens, and shuts down cleanly on SIGINT/SIGTERM.
 *
 * @module
 */
import { dirname } from "node:path";
import {
  DEFAULT_CONFIG_FILE,
  type EngineConfig,
  findWorkerEntry,
  loadConfigFile,
  placeOf,
} from "../engine/config/mod.ts";
import { type RunningEngine, startEngine } from "../engine/engine.ts";
import {
  parseTransport,
  TRANSPORT_VARIABLE,
  type TransportName,
} from "../engine/transport/select.ts";
import { LogPrinter } from "./log_printer.ts";
import { dialableHost, isUnspecifiedHost } from "../engine/host.ts";
import { BUILTIN_WORKERS, builtinConfigParsers } from "../workers/catalog.ts";
import { parseCommandArgs } from "./args.ts";
import { startEmbeddedConsole } from "./console.ts";
import { writeEngineRecord } from "./engine_record.ts";
import { movePortHint, portVariable } from "./port_variable.ts";
import { callerDir, resolveFromCaller } from "./paths.ts";
import { supervise, type Supervision } from "./supervise.ts";
import type { Io } from "./trigger.ts";
import { stopSignal } from "./signals.ts";
import { stopWithinBudget } from "./shutdown.ts";
import { type EngineFault, faultDetail, type FaultHandler, installFaultHandler } from "./faults.ts";

export function parseStartArgs(args: string[]): { config: string } {
  const { values } = parseCommandArgs("start", {
    args,
    options: { config: { type: "string", short: "c" } },
    strict: true,
    allowPositionals: false,
  });
  return { config: values.config ?? DEFAULT_CONFIG_FILE };
}

/** Merges top-level `rest_api.middleware` into the HTTP worker's own list (worker's first). */
export function withGlobalMiddleware(
  config: EngineConfig,
  name: string,
  workerConfig: unknown,
): unknown {
  if (name !== "engine-http" || config.rest_api.middleware.length === 0) return workerConfig;
  const own = (workerConfig as { middleware?: unknown[] }).middleware ?? [];
  return { ...(workerConfig as object), middleware: [...own, ...config.rest_api.middleware] };
}

export async function start(args: string[], io: Io): Promise<number> {
  const { config: configArg } = parseStartArgs(args);
  // Listening comes first: a SIGINT or SIGTERM during start-up stops what has started, as after a
  // run (exit 0), where Deno's default action killed the engine half started (exit 130 or 143).
  const done = new AbortController();
  // An engine bug nobody catches (a rejection nobody awaits) fails the start-up, and once the
  // engine serves it is logged and counted instead of ending the process (cli/faults.ts).
  const faults = installFaultHandler();
  try {
    return await startAndRun(configArg, io, stopSignal(done.signal), faults);
  } finally {
    done.abort();
    faults.remove();
  }
}

/** Returned by {@link untilSignal} when a stop signal came first. */
const SIGNALLED = Symbol("signalled");

/** Why start-up stops early: a stop signal, or an engine bug nobody caught. */
type StopCause = Deno.Signal | EngineFault;

/** `step`'s value, or {@link SIGNALLED} when a stop signal comes first (`step` is not waited for). */
function untilSignal<T>(
  step: Promise<T>,
  signalled: Promise<StopCause>,
): Promise<T | typeof SIGNALLED> {
  return Promise.race([step, signalled.then((): typeof SIGNALLED => SIGNALLED)]);
}

async function startAndRun(
  configArg: string,
  io: Io,
  stopSignalled: Promise<Deno.Signal>,
  faults: FaultHandler,
): Promise<number> {
  const signalled: Promise<StopCause> = Promise.race([stopSignalled, faults.duringStartUp]);
  let received: StopCause | undefined;
  signalled.then((cause) => received = cause);
  let transport: TransportName;
  try {
    transport = parseTransport(Deno.env.get(TRANSPORT_VARIABLE));
  } catch (e) {
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  }
  const file = resolveFromCaller(configArg);
  // Recorded for the CLI: the file changed after this may hold a token a restart applies.
  const read = Date.now();
  const loaded = await loadConfigFile(file, {
    workerConfigs: builtinConfigParsers(),
    cwd: callerDir(),
  });
  if (!loaded.ok) {
    io.err(`Error: ${loaded.error.message}`);
    return 1;
  }
  const config = loaded.config;
  // logs.level and logs.format, of the config the engine runs: each line follows a reload.
  const printer = new LogPrinter(io, () => config.logs);
  io = printer.io;
  if (received) return shutDown(received, io);
  let engine: RunningEngine;
  try {
    engine = await startEngine({
      host: config.host,
      port: config.port,
      invocationTimeoutMs: config.invocation_timeout_ms,
      maxFrameBytes: config.max_frame_bytes,
      baseDir: dirname(file),
      logCapacity: config.logs.max_entries,
      traceCapacity: config.traces.max_spans,
      redact: config.logs.redact,
      channelLimits: {
        maxPerWorker: config.channels.max_per_worker,
        maxTotal: config.channels.max_total,
      },
      logSink: printer.entry,
      transport,
      readyAtStart: false, // /health/ready: ready once the config's workers have started
      ...(config.auth.token ? { token: config.auth.token } : {}),
      ...(config.console.token ? { secrets: [config.console.token] } : {}),
    });
    engine.logs.sinkLevel = "debug"; // the printer keeps the level logs.level says at each entry
  } catch (e) {
    const where = `Cannot listen on ${config.host}:${config.port}`;
    io.err(
      e instanceof Deno.errors.AddrInUse
        ? `Error: ${await fieldPlace(file, ["port"])}: ${where}: address already in use: ` +
          `stop what uses it, or choose another "port"${await portHint(file, ["port"])}`
        : `Error: ${file}: ${where}: ${(e as Error).message}`,
    );
    return 1;
  }
  if (received) return shutDown(received, io, engine, undefined, config.shutdown_timeout_ms);
  const every = isUnspecifiedHost(engine.hostname) ? ` (every interface: ${engine.hostname})` : "";
  io.out(`Engine listening on ${engine.url}${every} (config ${file})`);
  // A built-in worker's start may hang (engine-state on a Redis that never answers waits for its
  // command time-out): a signal meanwhile stops the engine without waiting for it.
  if (
    config.console.enabled &&
    await untilSignal(
        startEmbeddedConsole(
          engine,
          config.console,
          io,
          await portHint(file, ["console", "port"]),
          config.auth.token !== undefined,
        ),
        signalled,
      ) === SIGNALLED
  ) return shutDown(await signalled, io, engine, undefined, config.shutdown_timeout_ms);
  for (const entry of config.workers) {
    const builtin = BUILTIN_WORKERS[entry.name];
    if (!builtin || entry.path) continue;
    try {
      const started = engine.startBuiltin(
        builtin,
        withGlobalMiddleware(config, entry.name, entry.config ?? {}),
      );
      if (await untilSignal(started, signalled) === SIGNALLED) {
        return shutDown(await signalled, io, engine, undefined, config.shutdown_timeout_ms);
      }
      const info = engine.describeBuiltin(entry.name);
      io.out(`Started worker ${entry.name}${info ? ` ${JSON.stringify(info)}` : ""}`);
    } catch (e) {
      const message = (e as Error).message;
      const fix = /address already in use/.test(message)
        ? `: stop what uses it, or choose another "port" in its config` +
          await workerPortHint(file, entry.name)
        : "";
      io.err(
        `Error: ${await entryPlace(file, entry.name)}: Worker "${entry.name}" failed to start: ` +
          `${message}${fix}`,
      );
      await engine.stop();
      return 1;
    }
  }
  const supervision = await supervise({
    file,
    config,
    engine,
    parse: { env: (name) => Deno.env.get(name), workerConfigs: builtinConfigParsers() },
    builtinConfig: (current, entry) =>
      withGlobalMiddleware(current, entry.name, entry.config ?? {}),
  });
  if (received) return shutDown(received, io, engine, supervision);
  printer.follow(() => supervision.reloader.config.logs);
  engine.health.watch(() => supervision.reloader.builtinFailures());
  engine.health.serving();
  const log = engine.logs.logger({ source: "engine" });
  faults.serving((message) => log.error(message));
  // For the CLI, whose view of the port may differ (ENGINE_PORT, port 0): cli/engine_record.ts.
  // Not awaited: the signal handlers come first.
  const recorded = writeEngineRecord(
    file,
    `ws://${dialableHost(engine.hostname)}:${engine.port}`,
    read,
  );
  const code = await shutDown(await stopSignalled, io, engine, supervision);
  await (await recorded)();
  return code;
}

/** `<file>:<line>:<col>: <field>`: where field `path` is in the config file. */
async function fieldPlace(file: string, path: string[]): Promise<string> {
  return placeOf(file, await Deno.readTextFile(file).catch(() => ""), path);
}

/** How to move the port at `path` for one run, when the file reads it from a variable. */
async function portHint(file: string, path: (string | number)[]): Promise<string> {
  return movePortHint(portVariable(await Deno.readTextFile(file).catch(() => ""), path));
}

/** {@link portHint} for the `port` of worker `name`'s config. */
async function workerPortHint(file: string, name: string): Promise<string> {
  const found = findWorkerEntry(await Deno.readTextFile(file).catch(() => ""), name);
  return found ? await portHint(file, ["workers", found.index, "config", "port"]) : "";
}

/** `<file>:<line>: workers[<i>]`: where worker `name`'s entry is in the config file. */
async function entryPlace(file: string, name: string): Promise<string> {
  const found = findWorkerEntry(await Deno.readTextFile(file).catch(() => ""), name);
  return found ? `${file}:${found.line}: workers[${found.index}]` : file;
}

/**
 * Stops, after `cause`, what has started: the built-in workers (one still starting is not waited
 * for), the local workers, then the engine, within `shutdown_timeout_ms` (cli/shutdown.ts; the
 * value of the config the engine runs). 0 after a signal, as a signal is how the engine is meant
 * to stop; 1 after an engine bug during start-up, or when the budget cut a step off.
 */
async function shutDown(
  cause: StopCause,
  io: Io,
  engine?: RunningEngine,
  supervision?: Supervision,
  budgetMs = supervision?.reloader.config.shutdown_timeout_ms,
): Promise<number> {
  const startedAt = Date.now();
  const fault = typeof cause === "string" ? undefined : cause;
  if (fault) io.err(`Error: Engine bug during start-up, stopping: ${faultDetail(fault)}`);
  else io.out(`Received ${cause}: shutting down`);
  const code = fault ? 1 : 0;
  if (!engine) return code;
  engine.health.stopping(); // /health/ready answers 503 while the work drains
  // engine-http first (its requests in progress finish while the workers answering them still
  // run), then the local workers, the other built-in workers and the engine, each within its share.
  const { cut } = await stopWithinBudget(engine, supervision, budgetMs ?? 8000, startedAt);
  io.out(cut.length === 0 ? "Engine stopped" : `Engine stopped: ${cut.length} step(s) cut off`);
  return cut.length === 0 ? code : 1;
}

/**
 * Starting and stopping an engine in this process: the core, its WebSocket
 * server, the `engine::*` functions and the built-in workers.
 *
 * @example
 * ```ts
 * import { startEngine } from "./engine.ts";
 * const engine = await startEngine({ port: 0 });
 * console.log(engine.url); // ws://127.0.0.1:<port>
 * await engine.stop();
 * ```
 * @module
 */
import type { BuiltinWorker, EngineApi, LogEntry, RunningWorker } from "./api.ts";
import { Engine } from "./core.ts";
import { BuiltinPeer } from "./builtin_peer.ts";
import { channelApi } from "./channels/local.ts";
import { ChannelRegistry } from "./channels/registry.ts";
import type { ChannelLimitOptions } from "./channels/limits.ts";
import { serveChannels } from "./channels/service.ts";
import { registerBuiltins } from "./builtins.ts";
import { callOfTrace } from "./call_of_trace.ts";
import { registerEventsTrigger } from "./events.ts";
import { LogStore } from "./observability/logs.ts";
import { TraceStore } from "./observability/traces.ts";
import { ingestTelemetry, Unplaced } from "./observability/otlp.ts";
import { dialableHost } from "./host.ts";
import { Readiness } from "./health.ts";
import { type EngineServer, serveEngine } from "./server.ts";
import { parseTransport, TRANSPORT_VARIABLE, type TransportName } from "./transport/select.ts";

export { Engine } from "./core.ts";

export interface StartOptions {
  host?: string;
  /** 0 picks a free port. Default 49134. */
  port?: number;
  invocationTimeoutMs?: number;
  builtins?: { worker: BuiltinWorker; config: unknown }[];
  /** Relative paths in built-in worker configs resolve against it. */
  baseDir?: string;
  maxFrameBytes?: number;
  maxBacklogBytes?: number;
  /** Worker connections must present it (`Authorization: Bearer`). */
  token?: string;
  logCapacity?: number;
  traceCapacity?: number;
  /** Keys redacted in logs and spans besides `authorization`, `cookie`, `x-api-key`, … */
  redact?: readonly string[];
  /** Values masked wherever a log message holds them, besides `token` (the console's token). */
  secrets?: readonly string[];
  /** Where readable log lines go; default none (tests), the CLI passes stderr. */
  logSink?: (entry: LogEntry) => void;
  /**
   * How long shutdown waits for calls in flight before failing them, and a
   * built-in worker's stop for the calls it runs (default 5 s).
   */
  shutdownGraceMs?: number;
  /** The WebSocket server; by default the one `ENGINE_TRANSPORT` names, else `deno`. */
  transport?: TransportName;
  /** Data channels `engine::channels::create` may have alive, per worker and in all. */
  channelLimits?: ChannelLimitOptions;
  /**
   * False: `/health/ready` says `starting` (503) until `health.serving()` is
   * called (the CLI starts its config's workers after this returns). Default true.
   */
  readyAtStart?: boolean;
}

export interface RunningEngine {
  /**
   * Where a client on this machine connects: `ws://<host>:<port>`, with a
   * host of every interface given as loopback (`0.0.0.0` → `127.0.0.1`,
   * `::` → `[::1]`), which every OS can dial.
   */
  url: string;
  /** The host the server is bound to (`0.0.0.0` stays `0.0.0.0`). */
  hostname: string;
  port: number;
  engine: Engine;
  logs: LogStore;
  traces: TraceStore;
  /** Readiness, as `/health/ready` says it: `stopping` once {@link stop} is called. */
  health: Readiness;
  /**
   * Masks `values` too wherever a log message holds them, besides the
   * engine's tokens: a token the config file now holds that a restart will
   * apply (a worker may print it before then).
   */
  addSecrets(values: readonly (string | undefined)[]): void;
  /** The API of a running built-in worker (or of the engine's own, `engine`). */
  builtinApi(name: string): EngineApi;
  /** Starts a built-in worker; rejects if its start fails. */
  startBuiltin(worker: BuiltinWorker, config: unknown): Promise<void>;
  stopBuiltin(name: string): Promise<void>;
  /** Gives running built-in worker `name` a changed config; `false` when it must restart for it. */
  reconfigureBuiltin(name: string, config: unknown): Promise<boolean>;
  /**
   * Holds calls to the functions built-in worker `name` has registered until
   * the returned function is called: they wait, instead of failing with
   * `function_not_found`, while it is stopped and started again.
   */
  holdCallsOf(name: string): () => void;
  builtinNames(): string[];
  describeBuiltin(name: string): Record<string, unknown> | undefined;
  /**
   * Stops the built-in workers, waits for calls in flight (`graceMs`, default `shutdownGraceMs`),
   * fails the rest and closes every connection.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

interface Attached {
  peer: BuiltinPeer;
  api: EngineApi;
  running?: RunningWorker;
  /** Its `start()` has not returned yet: its functions may still be coming. */
  starting?: boolean;
}

export async function startEngine(options: StartOptions = {}): Promise<RunningEngine> {
  const transport = options.transport ?? parseTransport(Deno.env.get(TRANSPORT_VARIABLE));
  const sink = options.logSink;
  const logs = new LogStore({
    capacity: options.logCapacity ?? 10_000,
    ...(sink ? { sink } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    secrets: [options.token, ...(options.secrets ?? [])],
  });
  const secrets = new Set([options.token, ...(options.secrets ?? [])]);
  const traces = new TraceStore(options.traceCapacity ?? 10_000, {
    ...(options.redact ? { redact: options.redact } : {}),
  });
  const log = logs.logger({ source: "engine" });
  const graceMs = options.shutdownGraceMs ?? 5000;
  const engine = new Engine({
    log,
    traces,
    ...(options.invocationTimeoutMs ? { invocationTimeoutMs: options.invocationTimeoutMs } : {}),
  });
  const baseDir = options.baseDir ?? Deno.cwd();
  const maxFrameBytes = options.maxFrameBytes ?? 16 * 1024 * 1024;
  const attached = new Map<string, Attached>();
  const channels = new ChannelRegistry(
    options.channelLimits ? { limits: options.channelLimits } : {},
  );

  const attach = (name: string, description: string): Attached => {
    const peer = new BuiltinPeer(engine);
    const conn = engine.connect(peer, {
      name,
      metadata: { runtime: "engine", sdk: "builtin", description },
    });
    peer.attach(conn);
    const a: Attached = {
      peer,
      api: {
        ...peer.api(logs.logger({ source: name, worker: name }), baseDir, { maxFrameBytes }),
        channels: channelApi(channels, conn.id),
      },
    };
    attached.set(name, a);
    return a;
  };

  const core = attach("engine", "The engine's own functions (engine::*)");
  const stopBuiltins = registerBuiltins(core.api, {
    engine,
    logs,
    startedAt: Date.now(),
    workerStatus: (name) => {
      const a = attached.get(name);
      return a?.starting ? { starting: true } : a?.running?.describe?.();
    },
  });
  const stopEvents = registerEventsTrigger(core.api, { engine, logs, traces });
  const stopChannels = serveChannels(core.api, { engine, channels, log });

  const health = new Readiness(options.readyAtStart ?? true);
  const unplaced = new Unplaced(); // iii-sdk log lines waiting for their span (otlp.ts)
  const server: EngineServer = await serveEngine({
    engine,
    log,
    hostname: options.host ?? "127.0.0.1",
    port: options.port ?? 49134,
    maxFrameBytes,
    maxBacklogBytes: options.maxBacklogBytes ?? 64 * 1024 * 1024,
    transport,
    channels,
    health,
    ...(options.token !== undefined ? { token: options.token } : {}),
    onTelemetry: (conn, kind, json) =>
      ingestTelemetry({
        logs,
        traces,
        conn,
        kind,
        json,
        callOfTrace: (traceId, spanId) => callOfTrace(engine, traceId, spanId),
        unplaced,
      }),
  });
  // Bound to every interface (0.0.0.0, ::): the url is where this machine dials it.
  const host = dialableHost(server.hostname);

  const running: RunningEngine = {
    url: `ws://${host}:${server.port}`,
    hostname: server.hostname,
    port: server.port,
    engine,
    logs,
    traces,
    health,
    addSecrets(values) {
      const before = secrets.size;
      for (const value of values) secrets.add(value);
      if (secrets.size > before) logs.useSecrets([...secrets]);
    },
    builtinApi(name) {
      const a = attached.get(name);
      if (!a) throw new Error(`No built-in worker named "${name}" is running`);
      return a.api;
    },
    async startBuiltin(worker, config) {
      if (attached.has(worker.name)) {
        throw new Error(`Built-in worker "${worker.name}" is already running`);
      }
      const a = attach(worker.name, worker.description);
      a.starting = true;
      try {
        a.running = await worker.start(a.api, config);
        a.starting = false;
      } catch (e) {
        a.peer.close();
        attached.delete(worker.name);
        engine.disconnect(a.peer.conn.id, "failed to start");
        throw e;
      }
    },
    async stopBuiltin(name) {
      const a = attached.get(name);
      if (!a || name === "engine") return;
      attached.delete(name);
      try {
        await a.running?.stop();
      } finally {
        a.peer.close();
        engine.disconnect(a.peer.conn.id, "stopped");
      }
    },
    async reconfigureBuiltin(name, config) {
      const a = attached.get(name);
      if (!a?.running?.reconfigure || a.starting) return false;
      return await a.running.reconfigure(config);
    },
    holdCallsOf(name) {
      const a = attached.get(name);
      return engine.holdFunctions(a ? engine.functions.ofOwner(a.peer.conn.id) : []);
    },
    builtinNames: () => [...attached.keys()].filter((n) => n !== "engine"),
    describeBuiltin: (name) => attached.get(name)?.running?.describe?.(),
    async stop(stopOptions) {
      health.stopping();
      stopEvents();
      stopBuiltins();
      stopChannels();
      for (const name of running.builtinNames().reverse()) {
        await running.stopBuiltin(name).catch((e) =>
          log.error(`Stopping built-in worker "${name}" failed`, { error: String(e) })
        );
      }
      await within(engine.invocations.whenEmpty(), stopOptions?.graceMs ?? graceMs);
      for (const id of [...engine.invocations.ids(), ...engine.heldCallIds()]) {
        engine.stop(id, "the engine is shutting down");
      }
      await server.shutdown();
      for (const id of [...engine.workers.keys()]) engine.disconnect(id, "engine stopped");
    },
  };

  for (const b of options.builtins ?? []) await running.startBuiltin(b.worker, b.config);
  return running;
}

/** Waits until `done` (no call in flight, say) or the grace period ends. */
async function within(done: Promise<void>, graceMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    done,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
  ]);
  clearTimeout(timer);
}

/**
 * Helpers for engine-http's channel tests on both transports: an engine with
 * engine-http and a raw worker serving its handlers, which opens a handler's
 * `response` ref as a plain WebSocket, so a test sees exactly what the engine
 * does to the writer's socket.
 *
 * @module
 */
import type { BuiltinWorker, ChannelRef, RunningWorker } from "../../engine/api.ts";
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { RawWorker } from "../../tests/support/raw_worker.ts";
import { type HttpConfig, httpWorker, type HttpWorkerStatus } from "./mod.ts";

export const TRANSPORTS: TransportName[] = ["deno", "native"];

export interface Writer {
  socket: WebSocket;
  closed: Promise<CloseEvent>;
}

/**
 * An engine with engine-http (`default_timeout` 3 s unless `config` says), and
 * a raw worker. `slots()` reads engine-http's `{in_flight, waiting}`, also
 * once it has stopped (through the handle its start returned).
 */
export async function stack(transport: TransportName, config: Record<string, unknown> = {}) {
  let running: RunningWorker | undefined;
  const kept: BuiltinWorker<HttpConfig> = {
    ...httpWorker,
    start: async (api, config) => running = await httpWorker.start(api, config),
  };
  const engine = await startEngine({
    port: 0,
    transport,
    shutdownGraceMs: 100,
    builtins: [{
      worker: kept,
      config: httpWorker.parseConfig({ port: 0, default_timeout: 3000, ...config }),
    }],
  });
  const port = (engine.describeBuiltin("engine-http") as { port: number }).port;
  const worker = await RawWorker.connect(engine.url);
  const slots = () => {
    const { in_flight, waiting } = running!.describe!() as HttpWorkerStatus;
    return { in_flight, waiting };
  };
  return { engine, worker, base: `http://127.0.0.1:${port}`, slots };
}

/** Registers `handler` for `GET path` and waits until engine-http routes it. */
export async function route(
  engine: RunningEngine,
  worker: RawWorker,
  path: string,
  handler: (req: { response: ChannelRef; request_body: ChannelRef }) => unknown,
): Promise<void> {
  const id = `ends::${path.slice(1)}`;
  worker.serve(id, (data) => handler(data as { response: ChannelRef; request_body: ChannelRef }));
  worker.send({
    type: "registertrigger",
    id: `trigger-${id}`,
    trigger_type: "http",
    function_id: id,
    config: { api_path: path, http_method: "GET" },
  });
  const routed = () =>
    (engine.describeBuiltin("engine-http") as { routes: { function_id: string }[] }).routes
      .some((r) => r.function_id === id);
  for (let i = 0; !routed(); i++) {
    if (i === 400) throw new Error(`Route ${path} was not registered within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Opens `ref` as a plain WebSocket, as an SDK's channel end does. */
export async function open(engine: RunningEngine, ref: ChannelRef): Promise<Writer> {
  const socket = new WebSocket(
    `${engine.url}/ws/channels/${ref.channel_id}?key=${ref.access_key}&dir=${ref.direction}`,
  );
  socket.binaryType = "arraybuffer";
  const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`Cannot open ${ref.channel_id}`));
  });
  return { socket, closed };
}

/** `promise`, or `"pending"` if it has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<"pending">((resolve) => timer = setTimeout(resolve, ms, "pending")),
  ]).finally(() => clearTimeout(timer));
}

/** Waits (polling every 10 ms, for up to 10 s) until `ready()`; throws naming `what` if never. */
export async function until(what: string, ready: () => boolean): Promise<void> {
  for (let i = 0; !ready(); i++) {
    if (i === 1000) throw new Error(`Gave up waiting for ${what} after 10 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The edge: the engine's WebSocket server. `/` carries the worker protocol,
 * `/otel` accepts the npm SDK's telemetry socket, `/health` answers plain
 * HTTP (see `transport/route.ts`). Two servers implement it, chosen with
 * `transport`: `deno` (`Deno.serve` and `Deno.upgradeWebSocket`, the default)
 * and `native` (an RFC 6455 server of our own over `Deno.listen`).
 *
 * @module
 */
import { serveDeno } from "./transport/deno_server.ts";
import { serveNative } from "./transport/native_server.ts";
import type { EngineServer, ServerOptions } from "./transport/options.ts";

export type { EngineServer, ServerOptions } from "./transport/options.ts";

export function serveEngine(options: ServerOptions): Promise<EngineServer> {
  return options.transport === "native" ? serveNative(options) : serveDeno(options);
}

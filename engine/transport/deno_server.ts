/**
 * The `deno` transport: `Deno.serve` and `Deno.upgradeWebSocket`.
 *
 * @module
 */
import type { WebSocketSession } from "../session.ts";
import { openSession, receiveTelemetry } from "./attach.ts";
import {
  type EngineServer,
  IDLE_TIMEOUT_S,
  type ServerOptions,
  SHUTDOWN_CLOSE,
  SHUTDOWN_WAIT_MS,
} from "./options.ts";
import { routeRequest } from "./route.ts";

export function serveDeno(options: ServerOptions): Promise<EngineServer> {
  const sessions = new Set<WebSocketSession>();
  const extra = new Set<WebSocket>();

  const handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Response => {
    // Read before the upgrade: the request is gone afterwards.
    const remoteAddress = info.remoteAddr.hostname;
    const route = routeRequest({
      pathname: new URL(req.url).pathname,
      upgrade: req.headers.get("upgrade")?.toLowerCase() === "websocket",
      origin: req.headers.get("origin"),
      authorization: req.headers.get("authorization"),
      remoteAddress,
    }, options);
    if (route.kind === "reply") return Response.json(route.body, { status: route.status });
    const { socket, response } = Deno.upgradeWebSocket(req, { idleTimeout: IDLE_TIMEOUT_S });
    socket.binaryType = "arraybuffer";
    if (route.path === "/otel") {
      extra.add(socket);
      socket.onmessage = (e) => {
        if (e.data instanceof ArrayBuffer) receiveTelemetry(new Uint8Array(e.data), options);
      };
      socket.onclose = () => extra.delete(socket);
      return response;
    }
    const session = openSession(socket, remoteAddress, options);
    sessions.add(session);
    socket.onopen = () => session.opened();
    socket.onmessage = (e) => session.receive(e.data);
    socket.onclose = () => {
      sessions.delete(session);
      session.closed();
    };
    socket.onerror = () => {/* onclose follows */};
    return response;
  };

  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (e) => {
      options.log.error("Engine server error", { error: String(e) });
      return new Response("Internal error", { status: 500 });
    },
  }, handler);
  return Promise.resolve({
    hostname: server.addr.hostname,
    port: server.addr.port,
    sessions,
    finished: server.finished,
    shutdown: async () => {
      for (const s of sessions) s.close(SHUTDOWN_CLOSE.code, SHUTDOWN_CLOSE.reason);
      for (const s of extra) s.close(SHUTDOWN_CLOSE.code, SHUTDOWN_CLOSE.reason);
      // Sockets that do not finish their closing handshake are not waited for beyond 2 s.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        server.shutdown(),
        new Promise((r) => timer = setTimeout(r, SHUTDOWN_WAIT_MS)),
      ]);
      clearTimeout(timer);
    },
  });
}

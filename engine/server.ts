/**
 * The edge: `Deno.serve` and the WebSocket upgrade. `/` carries the worker
 * protocol, `/otel` accepts the npm SDK's telemetry socket, `/health`
 * answers plain HTTP.
 *
 * @module
 */
import type { Logger } from "./api.ts";
import type { Engine, WorkerConn } from "./core.ts";
import { WebSocketSession } from "./session.ts";
import { isLoopbackOrigin } from "./origin.ts";
import { bearerToken, sameToken } from "./token.ts";

export interface ServerOptions {
  engine: Engine;
  log: Logger;
  hostname: string;
  port: number;
  maxFrameBytes: number;
  maxBacklogBytes: number;
  /** When set, worker connections must send `Authorization: Bearer <token>`. */
  token?: string;
  onTelemetry?: (conn: WorkerConn | undefined, kind: string, json: string) => void;
}

export interface EngineServer {
  hostname: string;
  port: number;
  sessions: Set<WebSocketSession>;
  /** Closes every socket and stops listening. */
  shutdown(): Promise<void>;
  finished: Promise<void>;
}

export function serveEngine(options: ServerOptions): Promise<EngineServer> {
  const sessions = new Set<WebSocketSession>();
  const extra = new Set<WebSocket>();
  const decoder = new TextDecoder();
  const { engine, log } = options;

  const handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Response => {
    // Read before the upgrade: the request is gone afterwards.
    const remoteAddress = info.remoteAddr.hostname;
    const url = new URL(req.url);
    const upgrade = req.headers.get("upgrade")?.toLowerCase() === "websocket";
    if (url.pathname === "/health" && !upgrade) {
      return Response.json({
        status: "ok",
        workers: engine.workers.size,
        functions: engine.functions.size,
      });
    }
    if (!upgrade || (url.pathname !== "/" && url.pathname !== "/otel")) {
      return Response.json(
        {
          error: {
            code: "NOT_FOUND",
            message: `No WebSocket endpoint at "${url.pathname}": connect to "/"`,
          },
        },
        { status: upgrade ? 404 : 426 },
      );
    }
    // A web page in the operator's browser can open this socket too: only loopback pages may.
    const origin = req.headers.get("origin");
    if (origin !== null && !isLoopbackOrigin(origin)) {
      log.warn(
        `Refused a WebSocket connection from ${remoteAddress}: opened by a web page at ${
          JSON.stringify(origin.slice(0, 200))
        }, and only pages on loopback may connect`,
      );
      return Response.json(
        {
          error: {
            code: "FORBIDDEN_ORIGIN",
            message:
              "This engine refuses WebSocket connections from web pages not served from loopback",
          },
        },
        { status: 403 },
      );
    }
    if (options.token !== undefined && !authorized(req, options.token)) {
      log.warn(`Refused a worker connection from ${remoteAddress}: missing or wrong token`);
      return Response.json(
        {
          error: {
            code: "AUTH_ERROR",
            message: 'This engine requires a token: send "Authorization: Bearer <token>"',
          },
        },
        { status: 401 },
      );
    }
    const { socket, response } = Deno.upgradeWebSocket(req, { idleTimeout: 30 });
    socket.binaryType = "arraybuffer";
    if (url.pathname === "/otel") {
      extra.add(socket);
      socket.onmessage = (e) => {
        if (!(e.data instanceof ArrayBuffer) || e.data.byteLength < 4) return;
        const bytes = new Uint8Array(e.data);
        const kind = decoder.decode(bytes.subarray(0, 4));
        options.onTelemetry?.(undefined, kind, decoder.decode(bytes.subarray(4)));
      };
      socket.onclose = () => extra.delete(socket);
      return response;
    }
    const session = new WebSocketSession(engine, socket, {
      log,
      maxFrameBytes: options.maxFrameBytes,
      maxBacklogBytes: options.maxBacklogBytes,
      remoteAddress,
      ...(options.onTelemetry ? { onTelemetry: options.onTelemetry } : {}),
    });
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
      log.error("Engine server error", { error: String(e) });
      return new Response("Internal error", { status: 500 });
    },
  }, handler);
  return Promise.resolve({
    hostname: server.addr.hostname,
    port: server.addr.port,
    sessions,
    finished: server.finished,
    shutdown: async () => {
      for (const s of sessions) s.close(1001, "engine shutting down");
      for (const s of extra) s.close(1001, "engine shutting down");
      // Sockets that do not finish their closing handshake are not waited for beyond 2 s.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        server.shutdown(),
        new Promise((r) => timer = setTimeout(r, 2000)),
      ]);
      clearTimeout(timer);
    },
  });
}

function authorized(req: Request, token: string): boolean {
  return sameToken(bearerToken(req.headers.get("authorization")), token);
}

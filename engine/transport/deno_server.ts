/**
 * The `deno` transport: `Deno.serve` and `Deno.upgradeWebSocket`.
 *
 * @module
 */
import type { WebSocketSession } from "../session.ts";
import { chosenProtocol, openSession, receiveTelemetry } from "./attach.ts";
import { claimChannel, serveDenoChannel } from "./channel_attach.ts";
import { checkUpgrade, hasToken } from "./handshake.ts";
import {
  type EngineServer,
  IDLE_TIMEOUT_S,
  type ServerOptions,
  SHUTDOWN_CLOSE,
  SHUTDOWN_WAIT_MS,
} from "./options.ts";
import { describeAcceptError, serveLasting } from "./lasting_serve.ts";
import { hostRefusal, refuseHost, routeRequest } from "./route.ts";

export function serveDeno(options: ServerOptions): Promise<EngineServer> {
  const sessions = new Set<WebSocketSession>();
  const extra = new Set<WebSocket>();

  const handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Response => {
    // Read before the upgrade: the request is gone afterwards.
    const remoteAddress = info.remoteAddr.hostname;
    const url = urlOf(req);
    if (url instanceof Response) return url;
    const route = routeRequest({
      pathname: url.pathname,
      search: url.search,
      upgrade: hasToken(req.headers.get("upgrade"), "websocket"),
      origin: req.headers.get("origin"),
      authorization: req.headers.get("authorization"),
      remoteAddress,
    }, options);
    if (route.kind === "reply") {
      return Response.json(route.body, { status: route.status, headers: route.headers ?? {} });
    }
    // Checked here, as the native server does: Deno.upgradeWebSocket() throws (a 500) on some
    // invalid requests and accepts others (a POST, another version, two keys).
    const check = checkUpgrade({ method: req.method, header: (name) => req.headers.get(name) });
    if (!check.ok) {
      const body = { error: { code: "BAD_REQUEST", message: check.message } };
      return Response.json(body, { status: check.status, headers: check.headers ?? {} });
    }
    if (route.kind === "channel") {
      const claim = claimChannel(route, options);
      if (!claim.ok) return Response.json(claim.body, { status: claim.status });
      const { socket, response } = Deno.upgradeWebSocket(req, { idleTimeout: IDLE_TIMEOUT_S });
      extra.add(socket);
      serveDenoChannel(socket, claim, options);
      socket.addEventListener("close", () => extra.delete(socket));
      return response;
    }
    const protocol = chosenProtocol(route, req.headers.get("sec-websocket-protocol"));
    // A message of 64 MiB or more ends the connection without a close frame (the sender sees
    // 1006): Deno.upgradeWebSocket has no option for its limit nor a 1009 (denoland/deno#15809).
    // The native server closes with 1009 and a reason (tests/e2e/message_too_big_test.ts).
    const { socket, response } = Deno.upgradeWebSocket(req, {
      idleTimeout: IDLE_TIMEOUT_S,
      ...(protocol ? { protocol } : {}),
    });
    socket.binaryType = "arraybuffer";
    if (route.path === "/otel") {
      extra.add(socket);
      socket.onmessage = (e) => {
        if (e.data instanceof ArrayBuffer) receiveTelemetry(new Uint8Array(e.data), options);
      };
      socket.onclose = () => extra.delete(socket);
      return response;
    }
    const session = openSession(socket, remoteAddress, options, protocol !== undefined);
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

  const server = serveLasting({
    hostname: options.hostname,
    port: options.port,
    handler,
    onError: (e) => {
      options.log.error("Engine server error", { error: String(e) });
      return new Response("Internal error", { status: 500 });
    },
    onAcceptError: (e, retryInMs) =>
      options.log.error(
        `Engine server cannot accept connections: listening again in ${retryInMs} ms`,
        { error: describeAcceptError(e) },
      ),
    onListenAgain: () => options.log.info("Engine server listens again"),
  });
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

/**
 * The URL of `req`, or the 400 refusing its Host: Deno builds `req.url` as
 * `http://` + Host + target, so a Host that is not a host would choose the
 * path (`a/otel?`) or make no URL at all (a port past 65535: a 500).
 */
function urlOf(req: Request): URL | Response {
  const host = req.headers.get("host");
  let refusal = refuseHost(host);
  if (refusal === undefined) {
    try {
      return new URL(req.url);
    } catch {
      refusal = hostRefusal(host ?? "");
    }
  }
  return Response.json(refusal.body, { status: refusal.status });
}

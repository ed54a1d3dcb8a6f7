/**
 * The `native` transport: the engine's port served by our own HTTP head
 * reader and RFC 6455 implementation over `Deno.listen`, with outgoing
 * frames written in batches (see `outbox.ts`).
 *
 * @module
 */
import type { WebSocketSession } from "../session.ts";
import { acceptLoop } from "./accept_loop.ts";
import { chosenProtocol, openSession, receiveTelemetry } from "./attach.ts";
import { claimChannel, serveNativeChannel } from "./channel_attach.ts";
import { acceptUpgrade, hasToken } from "./handshake.ts";
import { DEFAULT_HEAD_LIMITS, readRequestHead, type RequestHead } from "./http_head.ts";
import { jsonResponse, writeAll } from "./http_reply.ts";
import { describeAcceptError } from "./lasting_serve.ts";
import { NativeSocket } from "./native_socket.ts";
import {
  type EngineServer,
  IDLE_TIMEOUT_S,
  type ServerOptions,
  SHUTDOWN_CLOSE,
  SHUTDOWN_WAIT_MS,
} from "./options.ts";
import { refuseHost, routeRequest } from "./route.ts";

/**
 * The largest message Deno's server accepts (a frame of 64 MiB or more ends
 * its connection): messages up to it reach the session, which refuses those
 * over `max_frame_bytes` with `frame_too_large` and keeps the connection.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024 - 1;
/** How long a client has to answer our close frame. */
const CLOSE_TIMEOUT_MS = 1000;

export function serveNative(options: ServerOptions): Promise<EngineServer> {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const sessions = new Set<WebSocketSession>();
  const sockets = new Set<NativeSocket>();
  /** Connections still sending their request head. */
  const heads = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let stopping = false;

  const serveConn = async (conn: Deno.TcpConn): Promise<void> => {
    heads.add(conn);
    let head;
    try {
      conn.setNoDelay(true);
      head = await readRequestHead(conn, DEFAULT_HEAD_LIMITS);
    } finally {
      heads.delete(conn);
    }
    if (head.kind === "ended" || head.kind === "timeout") return;
    if (head.kind === "invalid") {
      const code = head.status === 431 ? "HEADERS_TOO_LARGE" : "BAD_REQUEST";
      return await reply(conn, head.status, { error: { code, message: head.message } });
    }
    const remoteAddress = (conn.remoteAddr as Deno.NetAddr).hostname;
    const request = head.head;
    const badHost = refuseHost(request.headers.get("host") ?? null);
    if (badHost !== undefined) return await reply(conn, badHost.status, badHost.body);
    const url = urlOf(request);
    if (url === undefined) {
      const message = `Malformed request target ${JSON.stringify(request.target.slice(0, 100))}`;
      return await reply(conn, 400, { error: { code: "BAD_REQUEST", message } });
    }
    const route = routeRequest({
      pathname: url.pathname,
      search: url.search,
      upgrade: hasToken(request.headers.get("upgrade"), "websocket"),
      origin: request.headers.get("origin") ?? null,
      authorization: request.headers.get("authorization") ?? null,
      remoteAddress,
    }, options);
    if (route.kind === "reply") {
      return await reply(conn, route.status, route.body, route.headers, request.method === "HEAD");
    }
    const protocol = chosenProtocol(route, request.headers.get("sec-websocket-protocol"));
    const handshake = acceptUpgrade(request, protocol);
    if (!handshake.ok) {
      const body = { error: { code: "BAD_REQUEST", message: handshake.message } };
      return await reply(conn, handshake.status, body, handshake.headers);
    }
    if (stopping) return;
    const claim = route.kind === "channel" ? claimChannel(route, options) : undefined;
    if (claim !== undefined && !claim.ok) return await reply(conn, claim.status, claim.body);
    const socket = new NativeSocket(conn, {
      maxMessageBytes: MAX_MESSAGE_BYTES,
      idleTimeoutMs: IDLE_TIMEOUT_S * 1000,
      closeTimeoutMs: CLOSE_TIMEOUT_MS,
    });
    // The 101 and the first frames leave in one write.
    socket.writeRaw(handshake.response);
    if (claim !== undefined) {
      sockets.add(socket);
      try {
        await serveNativeChannel(socket, claim, head.rest, options);
      } finally {
        sockets.delete(socket);
      }
      return;
    }
    if (route.kind === "channel") return; // claimed above
    if (route.path === "/otel") {
      socket.onBinary = (bytes) => receiveTelemetry(bytes, options);
      sockets.add(socket);
      try {
        await socket.run(head.rest);
      } finally {
        sockets.delete(socket);
      }
      return;
    }
    const session = openSession(socket, remoteAddress, options, protocol !== undefined);
    socket.onText = (text) => session.receive(text);
    // The reader's buffer is reused, and a frame may wait in the pacer for a later turn: a copy.
    socket.onBinary = (bytes) => session.receive(bytes.slice());
    sessions.add(session);
    sockets.add(socket);
    try {
      session.opened();
      await socket.run(head.rest);
    } finally {
      sockets.delete(socket);
      sessions.delete(session);
      session.closed();
    }
  };

  const stop = new AbortController();
  const accepting = acceptLoop(listener, {
    signal: stop.signal,
    onError: (e, retryInMs) =>
      options.log.error(`Engine server cannot accept a connection: retrying in ${retryInMs} ms`, {
        error: describeAcceptError(e),
      }),
    onConn: (conn) => {
      const task: Promise<void> = serveConn(conn)
        .catch((e) => options.log.error("Engine server error", { error: String(e) }))
        .finally(() => {
          tasks.delete(task);
          try {
            conn.close();
          } catch { /* closed already */ }
        });
      tasks.add(task);
    },
  });

  let finish: () => void;
  const finished = new Promise<void>((resolve) => finish = resolve);
  const addr = listener.addr as Deno.NetAddr;
  return Promise.resolve({
    hostname: addr.hostname,
    port: addr.port,
    sessions,
    finished,
    shutdown: async () => {
      if (!stopping) {
        stopping = true;
        stop.abort();
        listener.close();
      }
      await accepting;
      for (const conn of heads) conn.close();
      for (const s of sessions) s.close(SHUTDOWN_CLOSE.code, SHUTDOWN_CLOSE.reason);
      for (const s of sockets) s.close(SHUTDOWN_CLOSE.code, SHUTDOWN_CLOSE.reason);
      // Sockets that do not finish their closing handshake are not waited for beyond 2 s.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(tasks),
        new Promise((r) => timer = setTimeout(r, SHUTDOWN_WAIT_MS)),
      ]);
      clearTimeout(timer);
      for (const s of sockets) s.abort();
      await Promise.all(tasks);
      finish();
    },
  });
}

/**
 * The URL of a request target: origin form (`/path?query`, read as Deno's
 * server reads it: `//x` is a path, not a host) or absolute form from a
 * proxy (`http://host/path`); undefined for anything else.
 */
function urlOf(head: RequestHead): URL | undefined {
  const target = head.target;
  try {
    if (target.startsWith("/")) return new URL(`http://engine${target}`);
    if (/^https?:\/\//i.test(target)) return new URL(target);
  } catch { /* not a URL */ }
  return undefined;
}

/** Writes a complete JSON response; the caller closes the connection after it. */
async function reply(
  conn: Deno.Conn,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
  headOnly = false,
): Promise<void> {
  await writeAll(conn, jsonResponse(status, body, headers, headOnly)).catch(() => {});
}

/**
 * What the engine's port does with a request, whichever server reads it:
 * `/health` (liveness: 200 while it serves) and `/health/ready` (readiness:
 * 503 unless ready, `../health.ts`) answer JSON without a token, `/` (the worker protocol) and `/otel` (the npm
 * SDK's telemetry) upgrade to WebSocket (plain HTTP there gets 426 saying
 * so), as do data channels at `/ws/channels/{id}` once their id, access key
 * and end check out (`channels/route.ts`; no token: the key is the
 * credential); everything else is refused with a JSON error. Pages not served from loopback and, with a token configured,
 * connections without it are refused and logged.
 *
 * @module
 */
import type { Logger } from "../api.ts";
import type { Engine } from "../core.ts";
import type { Readiness } from "../health.ts";
import { CHANNEL_PATH, routeChannel } from "../channels/route.ts";
import type { Direction } from "../channels/channel.ts";
import type { ChannelRegistry } from "../channels/registry.ts";
import { isHostHeader } from "../host.ts";
import { isLoopbackOrigin } from "../origin.ts";
import { bearerToken, sameToken } from "../token.ts";

/** The parts of a request the decision reads. */
export interface RouteRequest {
  pathname: string;
  /** The query string (read for channel sockets only). */
  search?: string;
  /** Whether it asks for `Upgrade: websocket`. */
  upgrade: boolean;
  origin: string | null;
  authorization: string | null;
  remoteAddress: string;
}

export interface RouteContext {
  engine: Engine;
  log: Logger;
  token?: string;
  /** The data channels `/ws/channels/{id}` opens; none offered without it. */
  channels?: ChannelRegistry;
  /** What `/health` says of readiness; always `ok` without it. */
  health?: Readiness;
}

export type Route =
  | { kind: "reply"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "upgrade"; path: "/" | "/otel" }
  | { kind: "channel"; id: string; key: string; direction: Direction };

export function routeRequest(req: RouteRequest, context: RouteContext): Route {
  const { engine, log } = context;
  const { pathname, upgrade, remoteAddress } = req;
  if ((pathname === "/health" || pathname === "/health/ready") && !upgrade) {
    const { status, ...more } = context.health?.report() ?? { status: "ok" };
    const body = {
      status,
      workers: engine.workers.size,
      functions: engine.functions.size,
      ...more,
    };
    const live = pathname === "/health" || status === "ok";
    return {
      kind: "reply",
      status: live ? 200 : 503,
      body,
      headers: { "cache-control": "no-store" },
    };
  }
  const endpoint = pathname === "/" || pathname === "/otel";
  const channel = !endpoint && pathname.startsWith(CHANNEL_PATH);
  const shown = JSON.stringify(pathname.slice(0, 200));
  if (!upgrade && (endpoint || channel)) {
    return refuse(
      426,
      "UPGRADE_REQUIRED",
      `${shown} is the engine's WebSocket endpoint: connect with a WebSocket client ("Upgrade: websocket"); plain HTTP is answered at GET /health`,
      { upgrade: "websocket" },
    );
  }
  if (!upgrade) {
    return refuse(
      404,
      "NOT_FOUND",
      `Nothing at ${shown}: workers connect over WebSocket at "/", plain HTTP is answered at GET /health`,
    );
  }
  if (!endpoint && !channel) {
    return refuse(404, "NOT_FOUND", `No WebSocket endpoint at ${shown}: connect to "/"`);
  }
  // A web page in the operator's browser can open this socket too: only loopback pages may.
  const origin = req.origin;
  if (origin !== null && !isLoopbackOrigin(origin)) {
    log.warn(
      `Refused a WebSocket connection from ${remoteAddress}: opened by a web page at ${
        JSON.stringify(origin.slice(0, 200))
      }, and only pages on loopback may connect`,
    );
    return refuse(
      403,
      "FORBIDDEN_ORIGIN",
      "This engine refuses WebSocket connections from web pages not served from loopback",
    );
  }
  if (channel) return routeChannel(pathname, req.search ?? "", context.channels);
  if (
    context.token !== undefined && !sameToken(bearerToken(req.authorization), context.token)
  ) {
    log.warn(`Refused a worker connection from ${remoteAddress}: missing or wrong token`);
    return refuse(
      401,
      "AUTH_ERROR",
      'This engine requires a token: send "Authorization: Bearer <token>"',
    );
  }
  return { kind: "upgrade", path: pathname === "/otel" ? "/otel" : "/" };
}

/**
 * The refusal of a request whose `Host` header is not a host (RFC 9112 §3.2
 * asks for a 400), or undefined when `host` is one or missing. Both servers
 * check it first: the `deno` one reads a URL built from Host + target.
 */
export function refuseHost(host: string | null): HostRefusal | undefined {
  if (host === null || isHostHeader(host)) return undefined;
  return hostRefusal(host);
}

/** A 400 INVALID_HOST naming `host`. */
export function hostRefusal(host: string): HostRefusal {
  const message = `Host header ${
    JSON.stringify(host.slice(0, 100))
  } is not a host name or address with an optional port`;
  return { kind: "reply", status: 400, body: { error: { code: "INVALID_HOST", message } } };
}

export type HostRefusal = Extract<Route, { kind: "reply" }>;

function refuse(
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): Route {
  const route: Route = { kind: "reply", status, body: { error: { code, message } } };
  return headers ? { ...route, headers } : route;
}

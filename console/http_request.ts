/**
 * The Triggers page's request form: the console sends the request to the
 * engine's HTTP worker itself (no CORS in the browser's way) and returns
 * what came back. Only the HTTP worker's own address is ever requested.
 *
 * @module
 */
import { dialableHost, isLoopbackHost, isUnspecifiedHost } from "../engine/host.ts";
import { redactor } from "../engine/observability/redact.ts";
import type { EngineLink } from "./link.ts";

export interface HttpProbe {
  method: string;
  /** Starts with `/`; may carry a query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type HttpProbeResult =
  | { status: number; headers: [string, string][]; body: string; duration_ms: number }
  | { error: { code: string; message: string } };

const redact = redactor();

/** Where the engine's HTTP worker answers, seen from this console. */
export async function httpWorkerBase(link: EngineLink): Promise<string | undefined> {
  const { workers } = await link.call("engine::workers::list", {}) as {
    workers: { host?: unknown; port?: unknown; waiting?: unknown }[];
  };
  const http = workers.find((w) => typeof w.port === "number" && typeof w.host === "string");
  if (!http) return undefined;
  const engineHost = new URL(link.engineUrl).hostname;
  const host = String(http.host);
  // An HTTP worker on every interface, or on the engine machine's loopback, is
  // reached at the engine's own address unless that is loopback too.
  const reached = isUnspecifiedHost(host) || (isLoopbackHost(host) && !isLoopbackHost(engineHost))
    ? engineHost
    : host;
  return `http://${dialableHost(reached)}:${http.port}`;
}

export async function sendHttpRequest(
  link: EngineLink,
  probe: HttpProbe,
): Promise<HttpProbeResult> {
  const base = await httpWorkerBase(link);
  if (!base) {
    return {
      error: {
        code: "no_http_worker",
        message: "No HTTP worker is running: add engine-http to the engine's workers",
      },
    };
  }
  const start = performance.now();
  try {
    const method = probe.method;
    const response = await fetch(`${base}${probe.path}`, {
      method,
      headers: probe.headers,
      ...(probe.body !== undefined && method !== "GET" && method !== "HEAD"
        ? { body: probe.body }
        : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(60_000),
    });
    const body = await response.text();
    return {
      status: response.status,
      headers: redact([...response.headers]) as [string, string][],
      body,
      duration_ms: Math.round((performance.now() - start) * 100) / 100,
    };
  } catch (e) {
    return {
      error: {
        code: "http_request_failed",
        message: `Request to ${base}${probe.path} failed: ${(e as Error).message}`,
      },
    };
  }
}

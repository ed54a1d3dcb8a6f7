/**
 * Requests from browsers at the engine's edges. A web page in the
 * operator's browser can open a WebSocket to any address and send a form
 * POST anywhere; browsers mark both with an `Origin` header, which programs
 * (our SDKs, the npm `iii-sdk`, curl) do not send. The engine's socket and
 * the console admit pages served from this machine's loopback only.
 *
 * @module
 */
import { isLoopbackHost } from "./host.ts";

/** Whether `origin` (an `Origin` header) is an http(s) page on a loopback host. */
export function isLoopbackOrigin(origin: string): boolean {
  const url = parseOrigin(origin);
  return url !== undefined && isLoopbackHost(url.hostname);
}

/** Whether `origin` is a page of the server a request with `Host: <host>` was sent to. */
export function isOriginOfHost(origin: string, host: string): boolean {
  const url = parseOrigin(origin);
  if (url === undefined) return false;
  try {
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}

/** Whether the `Host` header `host` names a loopback address (`localhost:3113`, `[::1]`). */
export function isLoopbackHostHeader(host: string): boolean {
  try {
    return isLoopbackHost(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Host names as servers bind them and as clients dial them: which hosts
 * only this machine can reach, and where a process on this machine connects
 * to a server bound to a host (not `0.0.0.0`, which is nowhere to dial).
 *
 * @module
 */

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host);
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Whether `host` binds every interface: `0.0.0.0`, `::` or `[::]`, or
 * another spelling of them (`0`, `::0`, `0:0:0:0:0:0:0:0`).
 */
export function isUnspecifiedHost(host: string): boolean {
  return isUnspecifiedV4(host) || isUnspecifiedV6(unbracket(host));
}

const isUnspecifiedV4 = (host: string) => /^0+(\.0+){0,3}$/.test(host);
const isUnspecifiedV6 = (host: string) => host.includes(":") && /^[0:]+$/.test(host);

/**
 * The host a process on this machine dials to reach a server bound to
 * `host`, written for a URL: every interface becomes loopback of the same
 * family (`0.0.0.0` → `127.0.0.1`, `::` → `[::1]`), an IPv6 address gets
 * brackets, any other host stays as it is.
 *
 * @example
 * ```ts
 * import { dialableHost } from "./host.ts";
 * const url = `ws://${dialableHost("::")}:49134`; // ws://[::1]:49134
 * ```
 */
export function dialableHost(host: string): string {
  if (isUnspecifiedV4(host)) return "127.0.0.1";
  if (isUnspecifiedHost(host)) return "[::1]";
  return urlHost(host);
}

/** `host` as a URL writes it: an IPv6 address in brackets (once), any other host as it is. */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/**
 * What a `Host` header may hold (RFC 9110 §7.2): `uri-host [":" port]`, an
 * IPv6 address in brackets, a port up to 65535, empty included. Deno builds a
 * request's URL as `http://` + Host + target, so a `/`, `?`, `#` or `@` in it
 * would change the path, query or host a server reads from that URL.
 */
export function isHostHeader(value: string): boolean {
  const match = HOST_HEADER.exec(value);
  if (match === null) return false;
  const port = match[1];
  return port === undefined || port === "" || Number(port) <= 65535;
}

const HOST_HEADER =
  /^(?:\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)(?::(\d{0,5}))?$/;

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * Test support: a free TCP port, found by binding port 0 and releasing it.
 *
 * Another process may take the port between the release and the caller's
 * own bind, so use it only where the program cannot listen on port 0 and
 * report its port: a config that must name a fixed port (to restart on the
 * same one), `redis-server`, `nats-server`.
 *
 * @module
 */

/** A TCP port that was free on `hostname` (the IPv4 loopback by default) a moment ago. */
export function freePort(hostname = "127.0.0.1"): number {
  const listener = Deno.listen({ hostname, port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

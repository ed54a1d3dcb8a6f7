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

/** Below Linux's default ephemeral range (32768–60999), where clients' own ports come from. */
const STABLE_PORTS = { from: 20_000, to: 32_767 };

/**
 * A free port below the ephemeral range, for a server a test stops and starts
 * again on the same port. While nothing listens there, a client that keeps
 * reconnecting to a port in the ephemeral range can be given that very port
 * as its own and connect to itself (TCP simultaneous open): ioredis then took
 * its own echo for a ready Redis, and the test saw "reachable again" followed
 * by ECONNREFUSED.
 */
export function freeStablePort(hostname = "127.0.0.1"): number {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = STABLE_PORTS.from +
      Math.floor(Math.random() * (STABLE_PORTS.to - STABLE_PORTS.from + 1));
    try {
      Deno.listen({ hostname, port }).close();
      return port;
    } catch {
      // Taken: another.
    }
  }
  throw new Error(
    `No free port between ${STABLE_PORTS.from} and ${STABLE_PORTS.to} after 100 tries`,
  );
}

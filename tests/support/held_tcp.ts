/**
 * Test support: a TCP server that accepts connections and holds them, so a
 * client's start-up (engine-state connecting to Redis, say) hangs until the
 * test calls `release()`; then each connection is piped to `target` (a real
 * server's port), or, without one, left unanswered.
 *
 * @module
 */

export interface HeldTcp {
  port: number;
  /** Resolves once a first connection has come. */
  accepted: Promise<void>;
  /** From now on connections (those held and new ones) go through to the target. */
  release(): void;
  close(): Promise<void>;
}

export function holdTcp(target?: number): HeldTcp {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const conns: Deno.Conn[] = [];
  const pipes: Promise<unknown>[] = [];
  const pipe = async (conn: Deno.Conn) => {
    await released.promise;
    if (target === undefined) return;
    const upstream = await Deno.connect({ hostname: "127.0.0.1", port: target });
    conns.push(upstream);
    await Promise.allSettled([
      conn.readable.pipeTo(upstream.writable),
      upstream.readable.pipeTo(conn.writable),
    ]);
  };
  const loop = (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      accepted.resolve();
      pipes.push(pipe(conn).catch(() => {}));
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: accepted.promise,
    release: () => released.resolve(),
    async close() {
      listener.close();
      released.resolve();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* closed already */ }
      }
      await loop.catch(() => {});
      await Promise.allSettled(pipes);
    },
  };
}

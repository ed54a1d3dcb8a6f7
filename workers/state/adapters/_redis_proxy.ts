/**
 * Test support: a TCP proxy between a Redis client and a real `redis-server`
 * that can lose a reply (the connection breaks after Redis ran the command
 * but before its answer arrives) or hold every reply back (a Redis that hangs
 * without closing the connection, as behind a network partition).
 *
 * @module
 */

/** A running proxy in front of one Redis server. */
export interface RedisProxy {
  /** `redis://127.0.0.1:<proxy port>`: connect here instead of to Redis. */
  url: string;
  /**
   * The next request whose text `match` accepts is forwarded, and the
   * connection it came on is closed when Redis answers it, the answer unsent.
   * Resolves once that happened.
   */
  loseReplyTo(match: (request: string) => boolean): Promise<void>;
  /** Replies are held back from now on (requests still reach Redis). */
  hold(): void;
  /** Sends the held replies and forwards again. */
  release(): void;
  /** Closes every connection and the listener. */
  stop(): Promise<void>;
}

/** Starts a proxy on a free loopback port in front of Redis on `redisPort`. */
export function startRedisProxy(redisPort: number): RedisProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sockets = new Set<Deno.Conn>();
  const loops: Promise<void>[] = [];
  let losing: { match(request: string): boolean; done(): void } | undefined;
  let holding = false;
  const held: { to: Deno.Conn; bytes: Uint8Array }[] = [];

  const close = (conn: Deno.Conn) => {
    if (!sockets.delete(conn)) return;
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  };

  async function pump(
    from: Deno.Conn,
    to: Deno.Conn,
    onChunk: (bytes: Uint8Array) => Promise<void>,
  ): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        await onChunk(buffer.slice(0, n));
      }
    } catch {
      // A side closed.
    }
    close(from);
    close(to);
  }

  async function serve(client: Deno.Conn): Promise<void> {
    const server = await Deno.connect({ hostname: "127.0.0.1", port: redisPort });
    sockets.add(client);
    sockets.add(server);
    let loseNextReply: (() => void) | undefined;
    const decoder = new TextDecoder();
    const up = pump(client, server, async (bytes) => {
      if (losing?.match(decoder.decode(bytes))) {
        loseNextReply = losing.done;
        losing = undefined;
      }
      await server.write(bytes);
    });
    const down = pump(server, client, async (bytes) => {
      if (loseNextReply) {
        const done = loseNextReply;
        loseNextReply = undefined;
        close(client);
        close(server);
        done();
        return;
      }
      if (holding) held.push({ to: client, bytes });
      else await client.write(bytes);
    });
    await Promise.all([up, down]);
  }

  const accepting = (async () => {
    try {
      for await (const client of listener) loops.push(serve(client).catch(() => close(client)));
    } catch {
      // The listener closed.
    }
  })();

  return {
    url: `redis://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    loseReplyTo(match) {
      return new Promise((resolve) => losing = { match, done: resolve });
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const { to, bytes } of held.splice(0)) {
        if (sockets.has(to)) to.write(bytes).catch(() => close(to));
      }
    },
    async stop() {
      listener.close();
      for (const conn of [...sockets]) close(conn);
      await accepting;
      await Promise.all(loops);
    },
  };
}

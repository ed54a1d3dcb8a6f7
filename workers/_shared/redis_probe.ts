/**
 * Whether a server answers Redis without TLS: asked after a `rediss://`
 * connection failed without a word from Redis. A plain Redis reads a TLS
 * handshake as the start of a command and waits for the rest, so the
 * connection only timed out (`connect ETIMEDOUT`, after 10 s by default),
 * which said nothing of TLS.
 *
 * @module
 */

/** How long {@link answersWithoutTls} waits for the server. */
export const PROBE_WAIT_MS = 1000;

/**
 * Sends `PING` without TLS to the host and port of `url` (6379 when none);
 * true when the answer is Redis's (`+PONG`, or an error such as `-NOAUTH`),
 * false when it is not, or none came within `waitMs`.
 */
export async function answersWithoutTls(url: string, waitMs = PROBE_WAIT_MS): Promise<boolean> {
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  let conn: Deno.TcpConn | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), waitMs));
  const probe = (async () => {
    conn = await Deno.connect({ hostname, port });
    await conn.write(new TextEncoder().encode("PING\r\n"));
    const buffer = new Uint8Array(64);
    const n = await conn.read(buffer);
    return n !== null &&
      /^(\+PONG|-[A-Z]+ )/.test(new TextDecoder().decode(buffer.subarray(0, n)));
  })().catch(() => false);
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
    // A connection still being made is closed once made: the probe's own promise waits for it.
    try {
      conn?.close();
    } catch {
      // Already closed.
    }
    void probe.then(() => {
      try {
        conn?.close();
      } catch {
        // Closed above.
      }
    });
  }
}

/**
 * Test support: a real `redis-server` on a free loopback port, started for a
 * test and stopped by it. Needs the Debian package `redis-server`.
 *
 * @module
 */

import { Redis } from "ioredis";
import { freeStablePort } from "./ports.ts";

/** A running `redis-server`. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` without persistence; resolves once it accepts
 * connections. `port` starts it again where a stopped one listened;
 * `password` makes it require one (`requirepass`).
 */
export async function startRedisServer(
  options: { port?: number; password?: string } = {},
): Promise<RedisServer> {
  const port = options.port ?? freeStablePort();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("redis-server", {
      args: [
        ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        ...(options.password === undefined ? [] : ["--requirepass", options.password]),
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(
        "Cannot start redis-server: it is not installed (apt-get install redis-server)",
      );
    }
    throw error;
  }
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("Ready to accept connections")) {
    const { value, done } = await reader.read();
    if (done) {
      const stderr = await new Response(child.stderr).text();
      await child.status;
      throw new Error(`Cannot start redis-server on port ${port}: it exited:\n${output}${stderr}`);
    }
    output += value;
  }
  // Keep draining its output so the server never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  const stderrDrained = child.stderr.pipeTo(new WritableStream());
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      await Promise.all([child.status, drained, stderrDrained]);
    },
  };
}

/** A running `redis-server` shared by a suite of cases, each starting on an empty one. */
export interface FlushableRedisServer {
  url: string;
  /** Empties every database of the server. */
  flush(): Promise<void>;
  /** Closes the connection `flush` uses, then stops the server. */
  stop(): Promise<void>;
}

/** Starts `redis-server` (see {@link startRedisServer}) with a connection to empty it. */
export async function startFlushableRedisServer(): Promise<FlushableRedisServer> {
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  return {
    url: server.url,
    async flush() {
      await admin.flushall();
    },
    async stop() {
      await admin.quit();
      await server.stop();
    },
  };
}

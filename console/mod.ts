/**
 * The web console: `startConsole()` serves it on `Deno.serve` for an
 * {@link EngineLink}; `consoleWorker` runs it inside the engine as the
 * built-in worker `engine-console` (what `engine` does when
 * `console.enabled`), and `engine console` runs it against an engine
 * elsewhere through {@link remoteLink}.
 *
 * @module
 */
import { z } from "zod";
import type { BuiltinWorker, Logger, RunningWorker } from "../engine/api.ts";
import {
  describeAcceptError,
  type LastingServer,
  serveLasting,
} from "../engine/transport/lasting_serve.ts";
import { EventFeed } from "./feed.ts";
import { builtinLink, type EngineLink } from "./link.ts";
import { createConsoleApp } from "./server.ts";
import { urlHost } from "../engine/host.ts";
import { consoleBindingProblem } from "../engine/config/auth.ts";

export { type EngineLink, LinkError, remoteLink } from "./link.ts";

export interface ConsoleOptions {
  link: EngineLink;
  host: string;
  /** 0 picks a free port. */
  port: number;
  token?: string | undefined;
  /** Where listener failures go (the engine's log inside the engine); default stderr. */
  log?: Pick<Logger, "info" | "error">;
}

export interface RunningConsole {
  /** `http://host:port` */
  url: string;
  host: string;
  port: number;
  feed: EventFeed;
  stop(): Promise<void>;
}

/** Serves the console; rejects when the address is taken or a token is missing. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const problem = consoleBindingProblem(options.host, options.token);
  if (problem) throw new Error(problem);
  const feed = new EventFeed(options.link);
  await feed.start();
  const app = createConsoleApp({ link: options.link, feed, token: options.token });
  const log = options.log ?? { info: console.error, error: console.error };
  let server: LastingServer;
  try {
    server = serveLasting({
      hostname: options.host,
      port: options.port,
      handler: (request) => app.fetch(request),
      onAcceptError: (e, retryInMs) =>
        log.error(
          `Console cannot accept connections: listening again in ${retryInMs} ms`,
          { error: describeAcceptError(e) },
        ),
      onListenAgain: () => log.info("Console listens again"),
    });
  } catch (e) {
    await feed.stop();
    const reason = e instanceof Deno.errors.AddrInUse
      ? "address already in use"
      : (e as Error).message;
    throw new Error(`Console cannot listen on ${options.host}:${options.port}: ${reason}`, {
      cause: e,
    });
  }
  const port = server.addr.port;
  const shown = urlHost(options.host);
  return {
    url: `http://${shown}:${port}`,
    host: options.host,
    port,
    feed,
    async stop() {
      await feed.stop();
      await server.shutdown();
    },
  };
}

export const ConsoleWorkerConfig = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65535).default(3113),
  token: z.string().min(1).optional(),
  /** The engine's WebSocket URL, shown on the pages. */
  engine_url: z.string().default("ws://127.0.0.1:49134"),
});
export type ConsoleWorkerConfig = z.infer<typeof ConsoleWorkerConfig>;

/** The console inside the engine's process. */
export const consoleWorker: BuiltinWorker<ConsoleWorkerConfig> = {
  name: "engine-console",
  description: "The web console: workers, functions, triggers, queues, logs, traces, state",
  parseConfig: (raw) => ConsoleWorkerConfig.parse(raw ?? {}),
  defaultConfig: { host: "127.0.0.1", port: 3113 },
  async start(api, config): Promise<RunningWorker> {
    const running = await startConsole({
      link: builtinLink(api, config.engine_url, "engine-console"),
      host: config.host,
      port: config.port,
      token: config.token,
      log: api.log,
    });
    return {
      stop: () => running.stop(),
      describe: () => ({ url: running.url }),
    };
  },
};

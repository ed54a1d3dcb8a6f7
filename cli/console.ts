/**
 * `engine console [--host] [--port] [--url]`: serves the web console for the
 * engine at `ENGINE_URL`, prints its address, and runs until SIGINT or
 * SIGTERM. Also starts the console inside `engine` when `console.enabled`.
 *
 * @module
 */
import { CONSOLE_TOKEN_ENV, ENGINE_TOKEN_ENV } from "../engine/config/auth.ts";
import type { ConsoleConfig } from "../engine/config/schema.ts";
import type { RunningEngine } from "../engine/engine.ts";
import { consoleBindingProblem } from "../engine/config/auth.ts";
import { consoleWorker, remoteLink, startConsole } from "../console/mod.ts";
import { parseCommandArgs, parseUrlOption } from "./args.ts";
import { sdkNoticesToStderr } from "./sdk_notices.ts";
import { callerEngineUrl } from "./caller_engine.ts";
import { EngineClient } from "./engine_url.ts";
import { stopSignal } from "./signals.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";

export function parseConsoleArgs(
  args: string[],
): { host: string; port: number; url: string | undefined } {
  const { values } = parseCommandArgs("console", {
    args,
    options: {
      host: { type: "string" },
      port: { type: "string", short: "p" },
      url: { type: "string" },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port ?? 3113);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a port number (0-65535): got "${values.port}"`, "console");
  }
  return { host: values.host ?? "127.0.0.1", port, url: parseUrlOption(values.url, "console") };
}

export async function consoleCommand(args: string[], io: Io): Promise<number> {
  const { host, port, url: flag } = parseConsoleArgs(args);
  const url = await callerEngineUrl(flag);
  const token = Deno.env.get(CONSOLE_TOKEN_ENV) || undefined;
  const problem = consoleBindingProblem(host, token);
  if (problem) {
    io.err(`Error: ${problem}`);
    return 1;
  }
  let link;
  try {
    // One plain connection first: an engine that is not there (or refuses the
    // token) is told at once in one line, not after seconds of reconnecting.
    await (await EngineClient.connect(url, { name: "engine-console" })).close();
    sdkNoticesToStderr();
    link = await remoteLink(url, { name: "engine-console", namespace: "engine-console" });
  } catch (e) {
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  }
  let running;
  try {
    running = await startConsole({ link, host, port, token });
  } catch (e) {
    await link.close();
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  }
  io.out(`Console on ${running.url} (engine ${url})`);
  if (Deno.env.get(ENGINE_TOKEN_ENV) && !token) io.err(openConsoleWarning(running.url));
  const signal = await stopSignal();
  io.out(`Received ${signal}: shutting down`);
  await running.stop();
  await link.close();
  return 0;
}

/**
 * Starts the console inside a running engine (the built-in worker
 * `engine-console`). A console that cannot listen is reported, and the
 * engine goes on without it; `portHint` says how to move its port (see
 * `port_variable.ts`). `engineToken`: whether the engine asks workers for
 * `auth.token`; a console without `console.token` then gets a warning, as it
 * lets anyone on this machine call every function without that token.
 */
export async function startEmbeddedConsole(
  engine: RunningEngine,
  config: ConsoleConfig,
  io: Io,
  portHint = "",
  engineToken = false,
): Promise<void> {
  try {
    await engine.startBuiltin(consoleWorker, {
      host: config.host,
      port: config.port,
      engine_url: engine.url,
      ...(config.token ? { token: config.token } : {}),
    });
    const { url } = engine.describeBuiltin(consoleWorker.name) as { url: string };
    io.out(`Console on ${url}`);
    if (engineToken && !config.token) io.err(openConsoleWarning(url));
  } catch (e) {
    // The engine goes on: a warning, with the way out.
    io.err(
      `Warning: ${(e as Error).message}: the engine runs without its console; choose another ` +
        `"console.port" in the config file${portHint}, or set "console.enabled: false"`,
    );
  }
}

/** The warning for a console without a token in front of an engine that asks for one. */
export function openConsoleWarning(url: string): string {
  return `Warning: the console on ${url} has no "console.token" while the engine asks workers ` +
    `for "auth.token": anyone on this machine can call every function through it. Set ` +
    `"console.token" (or ${CONSOLE_TOKEN_ENV}) on a machine shared with other users`;
}

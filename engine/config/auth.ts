/**
 * Tokens: a worker connection may require one (`auth.token` or
 * `ENGINE_TOKEN`), and a console bound anywhere but loopback must require one
 * (`console.token` or `ENGINE_CONSOLE_TOKEN`), since it can call any function.
 *
 * @module
 */

import type { EngineConfig } from "./schema.ts";

/** Environment variable holding the token workers must present. */
export const ENGINE_TOKEN_ENV = "ENGINE_TOKEN";
/** Environment variable holding the console's token. */
export const CONSOLE_TOKEN_ENV = "ENGINE_CONSOLE_TOKEN";

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Fills `auth.token` and `console.token` from the environment where the file
 * sets none (an empty variable counts as unset), and returns the problem when
 * the console is exposed without a token.
 */
export function applyTokens(
  config: EngineConfig,
  env: (name: string) => string | undefined,
): { path: (string | number)[]; problem: string } | undefined {
  const engineToken = config.auth.token ?? (env(ENGINE_TOKEN_ENV) || undefined);
  if (engineToken !== undefined) config.auth.token = engineToken;
  const consoleToken = config.console.token ?? (env(CONSOLE_TOKEN_ENV) || undefined);
  if (consoleToken !== undefined) config.console.token = consoleToken;
  if (
    config.console.enabled && !isLoopbackHost(config.console.host) && consoleToken === undefined
  ) {
    return {
      path: ["console", "host"],
      problem: `Console bound to "${config.console.host}" requires a token: ` +
        `set "console.token" or ${CONSOLE_TOKEN_ENV}, or bind it to "127.0.0.1"`,
    };
  }
  return undefined;
}

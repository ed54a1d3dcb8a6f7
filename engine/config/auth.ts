/**
 * Tokens: a worker connection may require one (`auth.token` or
 * `ENGINE_TOKEN`), and a console bound anywhere but loopback must require one
 * (`console.token` or `ENGINE_CONSOLE_TOKEN`), since it can call any function.
 *
 * @module
 */

import { exposedWithoutToken, tokenProblem } from "../token.ts";
import type { EngineConfig } from "./schema.ts";

/** Environment variable holding the token workers must present. */
export const ENGINE_TOKEN_ENV = "ENGINE_TOKEN";
/** Environment variable holding the console's token. */
export const CONSOLE_TOKEN_ENV = "ENGINE_CONSOLE_TOKEN";

/** Why a console may not be bound to `host` with `token`, or `undefined` when it may. */
export function consoleBindingProblem(host: string, token: string | undefined): string | undefined {
  if (!exposedWithoutToken(host, token)) return undefined;
  return `Console bound to "${host}" requires a token: ` +
    `set "console.token" or ${CONSOLE_TOKEN_ENV}, or bind it to "127.0.0.1"`;
}

/**
 * Fills `auth.token` and `console.token` from the environment where the file
 * sets none (an empty variable counts as unset), and returns the problem when
 * the engine or the console is exposed without a token.
 */
export function applyTokens(
  config: EngineConfig,
  env: (name: string) => string | undefined,
): { path: (string | number)[]; problem: string } | undefined {
  const engineToken = config.auth.token ?? (env(ENGINE_TOKEN_ENV) || undefined);
  if (engineToken !== undefined) config.auth.token = engineToken;
  const consoleToken = config.console.token ?? (env(CONSOLE_TOKEN_ENV) || undefined);
  if (consoleToken !== undefined) config.console.token = consoleToken;
  // A token of the file was checked with the file; one from the environment is checked here.
  for (
    const [variable, token, path] of [
      [ENGINE_TOKEN_ENV, engineToken, ["auth", "token"]],
      [CONSOLE_TOKEN_ENV, consoleToken, ["console", "token"]],
    ] as const
  ) {
    const problem = token === undefined ? undefined : tokenProblem(token);
    if (problem !== undefined) {
      return { path: [...path], problem: `Environment variable ${variable}: ${problem}` };
    }
  }
  if (exposedWithoutToken(config.host, engineToken)) {
    return {
      path: ["host"],
      problem: `Refusing to accept workers on "${config.host}" without a token: ` +
        `set "auth.token" or ${ENGINE_TOKEN_ENV}, or bind to "127.0.0.1"`,
    };
  }
  const problem = config.console.enabled
    ? consoleBindingProblem(config.console.host, consoleToken)
    : undefined;
  return problem === undefined ? undefined : { path: ["console", "host"], problem };
}

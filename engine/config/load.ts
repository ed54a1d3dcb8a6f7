/**
 * Reading the config file from disk: the one part of `engine/config/` that
 * touches `Deno.*`.
 *
 * @module
 */

import { basename, dirname, relative, resolve } from "node:path";
import { ConfigError } from "./error.ts";
import { parseConfig, type ParseConfigOptions, type ParseConfigResult } from "./parse.ts";

/** The config file's name when none is given. */
export const DEFAULT_CONFIG_FILE = "engine-config.yaml";

export interface LoadConfigOptions extends Omit<ParseConfigOptions, "file" | "env"> {
  /** Reads an environment variable; `Deno.env.get` by default. */
  env?: (name: string) => string | undefined;
  /**
   * The folder the user works in: the `--directory` suggested for a missing
   * file is relative to it. `Deno.cwd()` by default.
   */
  cwd?: string;
}

/**
 * Reads and parses the config file at `path`. A missing file is a
 * {@linkcode ConfigError} that says how to create one.
 *
 * @example
 * ```ts ignore
 * import { loadConfigFile } from "./load.ts";
 * const result = await loadConfigFile("engine-config.yaml");
 * if (!result.ok) {
 *   console.error(result.error.message);
 *   Deno.exit(1);
 * }
 * ```
 */
export async function loadConfigFile(
  path: string,
  options: LoadConfigOptions = {},
): Promise<ParseConfigResult> {
  const { env = (name: string) => Deno.env.get(name), cwd = Deno.cwd(), ...rest } = options;
  let text: string;
  try {
    text = await Deno.readTextFile(resolve(cwd, path));
  } catch (error) {
    return { ok: false, error: readError(path, error, cwd) };
  }
  return parseConfig(text, { ...rest, file: path, env });
}

function readError(path: string, error: unknown, cwd: string): ConfigError {
  const absolute = resolve(cwd, path);
  if (error instanceof Deno.errors.NotFound) {
    // engine create writes engine-config.yaml: suggest it only for that name.
    const dir = relative(cwd, dirname(absolute)) || ".";
    const fix = basename(absolute) === DEFAULT_CONFIG_FILE
      ? `create one with "engine create --template quickstart --directory ${dir}", ` +
        `or write a file containing "workers: []"`
      : `write one containing "workers: []"`;
    return new ConfigError(`No config file at "${absolute}": ${fix}`, {
      file: path,
      cause: error,
    });
  }
  if (error instanceof Deno.errors.IsADirectory) {
    const example = resolve(absolute, DEFAULT_CONFIG_FILE);
    return new ConfigError(
      `"${absolute}" is a folder, not a config file: name the file, e.g. --config ${example}`,
      { file: path, cause: error },
    );
  }
  // The system's words without Deno's "(os error 13): readfile '…'" after them.
  const detail = error instanceof Error
    ? error.message.replace(/ \(os error \d+\)(: \w+ '.*')?$/, "")
    : String(error);
  return new ConfigError(`Cannot read config file "${absolute}": ${detail}`, {
    file: path,
    cause: error,
  });
}

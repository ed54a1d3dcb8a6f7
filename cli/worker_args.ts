/**
 * What the `engine worker` commands share: their options and reading the
 * config file the way the engine validates it.
 *
 * @module
 */

import { DEFAULT_CONFIG_FILE, type EngineConfig, parseConfig } from "../engine/config/mod.ts";
import { builtinConfigParsers } from "../workers/catalog.ts";
import { basename, dirname, join, relative } from "node:path";
import { parseCommandArgs, parseTimeoutMs, parseUrlOption } from "./args.ts";
import { callerDir, resolveFromCaller } from "./paths.ts";

/** Options shared by the `engine worker` commands. */
export interface WorkerArgs {
  positionals: string[];
  /** The config file, absolute. */
  config: string;
  force: boolean;
  url: string | undefined;
  wait: boolean;
  timeoutMs: number;
  json: boolean;
}

export function parseWorkerArgs(args: string[], defaultTimeoutMs: number): WorkerArgs {
  const { values, positionals } = parseCommandArgs("worker", {
    args,
    options: {
      config: { type: "string", short: "c" },
      force: { type: "boolean", short: "f" },
      url: { type: "string" },
      "no-wait": { type: "boolean" },
      "timeout-ms": { type: "string" },
      json: { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  const timeoutMs = parseTimeoutMs(values["timeout-ms"], {
    command: "worker",
    fallback: defaultTimeoutMs,
  });
  return {
    positionals,
    config: resolveFromCaller(values.config ?? DEFAULT_CONFIG_FILE),
    force: values.force ?? false,
    url: parseUrlOption(values.url, "worker"),
    wait: !values["no-wait"],
    timeoutMs,
    json: values.json ?? false,
  };
}

/** The config file's text and its validated content. */
export type ConfigFile =
  | { ok: true; text: string; config: EngineConfig }
  | { ok: false; message: string; missing: boolean };

/** Reads and validates the config file at `file` (absolute). */
export async function readConfigFile(file: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    const missing = error instanceof Deno.errors.NotFound;
    return {
      ok: false,
      missing,
      message: missing
        ? await missingConfigMessage(file)
        : `Cannot read "${file}": ${(error as Error).message}`,
    };
  }
  return checkConfigText(file, text);
}

/**
 * Why there is no config: run in a folder inside a project (a worker's
 * folder, say), the project's config in a folder above is named, with the
 * way to use it, rather than a new empty config suggested beside the worker.
 */
async function missingConfigMessage(file: string): Promise<string> {
  const above = await configAbove(file);
  if (above === undefined) {
    return `No config file at "${file}": create one containing "workers: []", or name another with --config`;
  }
  return `No config file at "${file}": the nearest one is "${above}": run the command in ` +
    `"${dirname(above)}", or add --config ${relative(callerDir(), above)}`;
}

/** The nearest file of the same name as `file` in a folder above its own. */
async function configAbove(file: string): Promise<string | undefined> {
  const name = basename(file);
  for (let dir = dirname(dirname(file));; dir = dirname(dir)) {
    const candidate = join(dir, name);
    try {
      if ((await Deno.stat(candidate)).isFile) return candidate;
    } catch {
      // Not in this folder: look further up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Validates config text as the engine would. */
export function checkConfigText(file: string, text: string): ConfigFile {
  const parsed = parseConfig(text, {
    file,
    env: (name) => Deno.env.get(name),
    workerConfigs: builtinConfigParsers(),
  });
  if (!parsed.ok) return { ok: false, missing: false, message: parsed.error.message };
  return { ok: true, text, config: parsed.config };
}

/**
 * What the commands share in reading their arguments: `parseArgs` whose
 * complaints are usage errors of the command, and the `--timeout-ms` value.
 *
 * @module
 */

import { parseArgs, type ParseArgsConfig } from "node:util";
import { didYouMean } from "../engine/suggest.ts";
import { UsageError } from "./usage.ts";

/**
 * `parseArgs(config)`; a complaint about the arguments becomes a
 * {@linkcode UsageError} of `command`. An unknown option is named, with the
 * option it is a typo of, if any.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  let parsed;
  try {
    parsed = parseArgs({ ...config, tokens: true });
  } catch (e) {
    const unknown = /^Unknown option '([^']+)'/.exec((e as Error).message)?.[1];
    if ((e as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
      const known = Object.keys(config.options ?? {}).map((name) => `--${name}`);
      const typed = unknown.split("=")[0]!;
      throw new UsageError(`Unknown option "${unknown}"${didYouMean(typed, known)}`, command);
    }
    throw new UsageError(restate((e as Error).message), command);
  }
  // parseArgs keeps the last of a repeated option: a value given twice is more likely a slip.
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option" || token.value === undefined) continue;
    if (token.value === "") {
      // A file, folder, URL or id that is empty names nothing (--config= would be the folder).
      throw new UsageError(
        `Empty value of "--${token.name}": give one, or leave the option out`,
        command,
      );
    }
    if (config.options?.[token.name]?.multiple) continue;
    if (seen.has(token.name)) {
      throw new UsageError(
        `Option "--${token.name}" is given twice: give it once (the second would override the first)`,
        command,
      );
    }
    seen.add(token.name);
  }
  return parsed as ReturnType<typeof parseArgs<T>>;
}

/**
 * `parseArgs`'s other complaints in our words: the option or argument in
 * double quotes and what to do, on one line.
 */
function restate(message: string): string {
  const option = /^Option '(?:-\w, )?(--[\w-]+)/.exec(message)?.[1];
  if (option !== undefined && / argument missing$/.test(message)) {
    return `Missing value of "${option}": write ${option}=<value>`;
  }
  if (option !== undefined && / does not take an argument$/.test(message)) {
    return `Option "${option}" takes no value: write ${option} alone`;
  }
  if (option !== undefined && / argument is ambiguous\./.test(message)) {
    return `Missing value of "${option}": it is followed by an option; a value starting with ` +
      `"-" is written ${option}=<value>`;
  }
  const argument = /^Unexpected argument '(.*)'\. /s.exec(message)?.[1];
  if (argument !== undefined) {
    return `Unexpected argument "${argument}": this command takes options only`;
  }
  return message;
}

/**
 * The milliseconds `--timeout-ms` gave as `text`, or `options.fallback`
 * without it; anything but a positive whole number is a
 * {@linkcode UsageError} of `options.command`.
 */
export function parseTimeoutMs(
  text: string | undefined,
  options: { command: string; fallback: number },
): number {
  if (text === undefined) return options.fallback;
  const timeoutMs = Number(text);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new UsageError(
      `--timeout-ms must be a positive whole number of milliseconds: got "${text}"`,
      options.command,
    );
  }
  return timeoutMs;
}

/**
 * The engine URL `--url` gave as `text`; anything but a `ws:`, `wss:`,
 * `http:` or `https:` URL is a {@linkcode UsageError} of `command`. A bare
 * `host:port` is told how to write it.
 */
export function parseUrlOption(text: string | undefined, command: string): string | undefined {
  if (text === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    // Not a URL at all.
  }
  if (protocol !== undefined && ["ws:", "wss:", "http:", "https:"].includes(protocol)) return text;
  const hostPort = /^(?:[\w.-]+|\[[0-9A-Fa-f:.]+\]):\d+$/.test(text);
  throw new UsageError(
    `--url must be a WebSocket URL, e.g. ws://127.0.0.1:49134: got "${text}"` +
      (hostPort ? `: write "ws://${text}"` : ""),
    command,
  );
}

/**
 * Installing a local worker's dependencies (`scripts.install`, run with
 * `sh -c` in the worker's folder, never anywhere else) and the cache that
 * skips it: an install is current while the worker's folder, its manifest
 * and its lock files are what they were at the last successful install.
 *
 * Cache and logs live next to the config file:
 * `<config dir>/.engine/installs/<name>.json` (the key) and `<name>.log`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import {
  closeLifeline,
  ENGINE_ONLY_SECRETS,
  killGroup,
  OUTPUT_HELD,
  readOutput,
  spawnGroup,
} from "./group.ts";
import type { LoadedManifest } from "./manifest.ts";

/** Files whose content decides whether dependencies must be installed again. */
export const LOCK_FILES: readonly string[] = [
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
  "deno.json",
  "deno.jsonc",
  "deno.lock",
  "requirements.txt",
  "pyproject.toml",
  "uv.lock",
  "poetry.lock",
  "Pipfile",
  "Pipfile.lock",
  "Cargo.toml",
  "Cargo.lock",
  "go.mod",
  "go.sum",
  "Gemfile.lock",
];

/** The install cache folder of the config file at `configFile`. */
export function installCacheDir(configFile: string): string {
  return join(dirname(configFile), ".engine", "installs");
}

/** Where the install of worker `name` keeps its log and its cache record. */
export function installPaths(cacheDir: string, name: string): { log: string; record: string } {
  return { log: join(cacheDir, `${name}.log`), record: join(cacheDir, `${name}.json`) };
}

/** The cache key of a worker's install: a hash of its folder, manifest and lock files. */
export async function installKey(loaded: LoadedManifest): Promise<string> {
  const parts = [`folder\0${loaded.folder}`, `manifest\0${loaded.text}`];
  for (const name of LOCK_FILES) {
    try {
      const bytes = await Deno.readFile(join(loaded.folder, name));
      parts.push(`${name}\0${await sha256(bytes)}`);
    } catch {
      // absent
    }
  }
  return await sha256(new TextEncoder().encode(parts.join("\0\0")));
}

/** Whether the last successful install of this worker is still current. */
export async function installIsCurrent(loaded: LoadedManifest, cacheDir: string): Promise<boolean> {
  const { record } = installPaths(cacheDir, loaded.manifest.name);
  try {
    const saved = JSON.parse(await Deno.readTextFile(record)) as { key?: unknown };
    return saved.key === await installKey(loaded);
  } catch {
    return false;
  }
}

export type InstallResult =
  /** The manifest has no install script. */
  | { kind: "none" }
  | { kind: "cached" }
  | { kind: "installed"; log: string; durationMs: number }
  | { kind: "failed"; log: string; durationMs: number; code: number; tail: string[] };

export interface InstallOptions {
  cacheDir: string;
  /** Install even when the cache is current. */
  force?: boolean;
  /** Added to the engine's environment (the manifest's `env` is added too). */
  env?: Record<string, string>;
  /** Each output line (stdout and stderr, in arrival order). */
  onLine?: (line: string) => void;
  /** Called once the install process runs, with its command and log file. */
  onStart?: (info: { command: string; folder: string; log: string }) => void;
  /** Aborting kills the install (its whole process group). */
  signal?: AbortSignal;
  /** Lines kept for `tail` of a failure. */
  tailLines?: number;
}

/**
 * What an install does not get of the engine's (or the CLI's) environment:
 * it runs package managers and the scripts of third-party packages, and
 * never connects to the engine, so neither token.
 */
export const INSTALL_WITHHOLDS: readonly string[] = ["ENGINE_TOKEN", ...ENGINE_ONLY_SECRETS];

function installEnv(env: Record<string, string>): Record<string, string> {
  const kept = { ...env };
  for (const name of INSTALL_WITHHOLDS) delete kept[name];
  return kept;
}

/**
 * Runs `scripts.install` unless the cache is current (or there is none).
 * The full output goes to the log file; a success records the cache key.
 */
export async function install(
  loaded: LoadedManifest,
  options: InstallOptions,
): Promise<InstallResult> {
  const command = loaded.manifest.scripts.install?.trim() ?? "";
  if (command === "") return { kind: "none" };
  if (!options.force && await installIsCurrent(loaded, options.cacheDir)) return { kind: "cached" };
  const { log, record } = installPaths(options.cacheDir, loaded.manifest.name);
  await Deno.mkdir(options.cacheDir, { recursive: true });
  await Deno.remove(record).catch(() => {});
  const key = await installKey(loaded);
  const file = await Deno.open(log, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const tail: string[] = [];
  const keep = options.tailLines ?? 20;
  const started = Date.now();
  const note = (line: string) => {
    let bytes = encoder.encode(`${line}\n`);
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
  };
  const onLine = (line: string) => {
    note(line);
    tail.push(line);
    if (tail.length > keep) tail.shift();
    options.onLine?.(line);
  };
  note(`$ ${command}   (in ${loaded.folder}, ${new Date(started).toISOString()})`);
  let code: number;
  try {
    options.onStart?.({ command, folder: loaded.folder, log });
    const child = spawnGroup(command, {
      cwd: loaded.folder,
      env: installEnv({ ...loaded.manifest.env, ...options.env }),
      withhold: INSTALL_WITHHOLDS,
      label: `engine-install:${loaded.manifest.name}`,
    });
    const abort = () => killGroup(child.pid, 2000);
    options.signal?.addEventListener("abort", abort, { once: true });
    // A stop that came while the manifest was read and hashed: no abort event follows it.
    if (options.signal?.aborted) abort();
    const output = readOutput(child, onLine, onLine);
    const status = await child.status;
    options.signal?.removeEventListener("abort", abort);
    await killGroup(child.pid, 2000); // whatever it left running in the background
    // Not waiting for a daemon it started in a session of its own, which holds the output open.
    if (!await output.finish()) note(`[${OUTPUT_HELD}]`);
    await closeLifeline(child);
    code = status.signal ? 128 + signalNumber(status.signal) : status.code;
    note(`[exit code ${code} after ${Date.now() - started} ms]`);
  } catch (error) {
    onLine(`Cannot run the install: ${(error as Error).message}`);
    code = 127;
  } finally {
    file.close();
  }
  const durationMs = Date.now() - started;
  if (code !== 0) return { kind: "failed", log, durationMs, code, tail };
  await Deno.writeTextFile(
    record,
    JSON.stringify({ key, command, folder: loaded.folder, installed_at: new Date().toISOString() }),
  );
  return { kind: "installed", log, durationMs };
}

function signalNumber(signal: Deno.Signal): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

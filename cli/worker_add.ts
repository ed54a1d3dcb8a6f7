/**
 * `engine worker add <path|builtin> [--force]`: a folder with an
 * `engine.worker.yaml` becomes a local worker (its dependencies installed,
 * unless the cache says they are current), a built-in name becomes a
 * built-in worker with its reference configuration. Nothing is written
 * unless everything before succeeded. A running engine of the same config
 * file starts the worker; this command then waits until its functions are
 * registered.
 *
 * @module
 */

import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { didYouMean } from "../engine/suggest.ts";
import {
  addWorkerEntry,
  type EngineConfig,
  findWorkerEntry,
  type WorkerEntryInput,
} from "../engine/config/mod.ts";
import { install, installCacheDir } from "../engine/supervisor/install.ts";
import { type LoadedManifest, loadManifest } from "../engine/supervisor/manifest.ts";
import { BUILTIN_WORKERS } from "../workers/catalog.ts";
import { editConfigFile } from "./config_write.ts";
import { callerDir } from "./paths.ts";
import { formatDuration, progress } from "./progress.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";
import {
  checkConfigText,
  type ConfigFile,
  parseWorkerArgs,
  readConfigFile,
  type WorkerArgs,
} from "./worker_args.ts";
import { findEngineUrl, linkEngine } from "./worker_engine.ts";
import { waitForBuiltin, waitForLocal } from "./worker_wait.ts";

export async function workerAdd(args: string[], io: Io): Promise<number> {
  const options = parseWorkerArgs(args, 120_000);
  const [target, ...extra] = options.positionals;
  if (target === undefined) {
    throw new UsageError(
      "Missing the worker: a folder path, or engine-http / engine-state / engine-queue",
      "worker",
    );
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}"`, "worker");
  const read = await readConfigFile(options.config);
  if (!read.ok) {
    io.err(
      `Error: ${
        read.missing ? read.message : `Cannot add to an invalid config file: ${read.message}`
      }`,
    );
    return 1;
  }
  if (!isPathLike(target) && target in BUILTIN_WORKERS) {
    return await addBuiltin(target, read, options, io);
  }
  return await addLocal(expandHome(target), read, options, io);
}

function isPathLike(arg: string): boolean {
  return /^[.~/]/.test(arg) || arg.includes("/") || arg.includes(sep);
}

function expandHome(path: string): string {
  const home = Deno.env.get("HOME");
  if (home && (path === "~" || path.startsWith("~/"))) return home + path.slice(1);
  return isAbsolute(path) ? path : resolve(callerDir(), path);
}

/** The config file as read and validated at the start of the command. */
type ReadConfig = Extract<ConfigFile, { ok: true }>;

/**
 * For `engine worker add math-worker`, the name of a local worker already in
 * the config rather than its folder: where that worker's folder is.
 */
function entryHint(name: string, read: ReadConfig, file: string): string | undefined {
  const path = read.config.workers.find((w) => w.name === name)?.path;
  const found = findWorkerEntry(read.text, name);
  if (path === undefined || found === undefined) return undefined;
  return `: "${name}" is in ${file} (line ${found.line}) with path ${path}: give the folder, ` +
    `as in "engine worker add ${path} --force" to restart it`;
}

async function addLocal(
  folder: string,
  read: ReadConfig,
  options: WorkerArgs,
  io: Io,
): Promise<number> {
  const file = options.config;
  let loaded: LoadedManifest;
  try {
    loaded = await loadManifest(folder);
  } catch (error) {
    const message = (error as Error).message;
    let hint = "";
    if (message.startsWith("No folder")) {
      const typo = didYouMean(basename(folder), Object.keys(BUILTIN_WORKERS));
      const builtins = Object.keys(BUILTIN_WORKERS).map((n) => `"${n}"`).join(", ");
      hint = typo || entryHint(basename(folder), read, file) ||
        ` (built-in workers: ${builtins})`;
    }
    io.err(`Error: ${message}${hint}`);
    return 1;
  }
  const { manifest } = loaded;
  const name = manifest.name;
  const clash = await findClash(read.config, file, name, loaded);
  if (clash) {
    io.err(`Error: ${clash}; ${file} is unchanged`);
    return 1;
  }
  const existing = findWorkerEntry(read.text, name);
  if (existing && !options.force) {
    io.out(
      `Worker "${name}" is already in ${file} (line ${existing.line}): nothing changed. ` +
        `Rerun with --force to reinstall its dependencies and restart it.`,
    );
    return 0;
  }
  io.out(`Worker "${name}" (${manifest.runtime.kind}) in ${loaded.folder}`);
  const installed = await runInstall(loaded, file, options.force, io);
  if (installed !== 0) return installed;

  let config = read.config;
  if (!existing) {
    const entry = { name, path: configPath(dirname(file), loaded.folder) };
    // Edits the file as it is now rather than read.text: the install can take minutes, and an
    // edit made to the file meanwhile (even this worker added) must not be lost.
    const written = await writeEntry(file, entry, `"${name}" was added meanwhile`, io);
    if (written === undefined) return 1;
    config = written;
    io.out(`Added "${name}" to ${file} (path ${entry.path})`);
  }
  io.out(`The engine runs it with: ${manifest.scripts.start}   (in ${loaded.folder})`);
  return await followEngine(name, options, io, {
    kind: "local",
    config,
    restart: Boolean(existing),
  });
}

/**
 * Adds `entry` to the config file as it is now, under its lock (see
 * {@linkcode editConfigFile}), if the result is a valid config. The config
 * written, or `undefined` once the error is reported (`exists` when the file
 * has an entry of that name by now).
 */
async function writeEntry(
  file: string,
  entry: WorkerEntryInput,
  exists: string,
  io: Io,
): Promise<EngineConfig | undefined> {
  let config: EngineConfig | undefined;
  const failed = await editConfigFile(file, (text) => {
    const edited = addWorkerEntry(text, entry, { file });
    if (!edited.ok) return { error: edited.reason === "exists" ? exists : edited.message };
    const checked = checkConfigText(file, edited.text);
    if (!checked.ok) {
      return {
        error: `The edited config would be invalid, so it was not written: ${checked.message}`,
      };
    }
    config = checked.config;
    return { text: edited.text };
  });
  if (failed !== undefined) {
    io.err(`Error: ${failed}`);
    return undefined;
  }
  return config;
}

/** Why `name` from `loaded` cannot be added to `config` (of `file`), if it cannot. */
async function findClash(
  config: EngineConfig,
  file: string,
  name: string,
  loaded: LoadedManifest,
): Promise<string | undefined> {
  if (name in BUILTIN_WORKERS) {
    return `${loaded.file}: name "${name}" is the name of a built-in worker: choose another`;
  }
  const base = dirname(file);
  const here = await realPath(loaded.folder);
  for (const entry of config.workers) {
    const path = entry.path === undefined ? undefined : await realPath(resolve(base, entry.path));
    if (entry.name === name && path !== here) {
      const where = entry.path === undefined ? "as a built-in worker" : `with path "${entry.path}"`;
      return `a worker named "${name}" is already in ${file} ${where}: rename the ` +
        `worker in ${loaded.file}, or remove the other with "engine worker remove ${name}"`;
    }
    if (entry.name !== name && path === here) {
      return `${loaded.folder} is already in ${file} as worker "${entry.name}": remove it ` +
        `first with "engine worker remove ${entry.name}"`;
    }
  }
  return undefined;
}

async function realPath(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return resolve(path);
  }
}

/** The worker's path as the config stores it: relative to the config's folder when inside it. */
function configPath(base: string, folder: string): string {
  const rel = relative(base, folder);
  if (rel === "") return ".";
  if (rel.startsWith("..") || isAbsolute(rel)) return folder;
  return `./${rel.split(sep).join("/")}`;
}

async function runInstall(
  loaded: LoadedManifest,
  file: string,
  force: boolean,
  io: Io,
): Promise<number> {
  let show: ReturnType<typeof progress> | undefined;
  const result = await install(loaded, {
    cacheDir: installCacheDir(file),
    force,
    onStart: ({ command, folder, log }) => {
      io.out(`Installing: ${command}   (in ${folder})`);
      io.out(`Install log: ${log}`);
      show = progress(io, "Installing dependencies");
    },
    onLine: (line) => show?.line(line),
  });
  switch (result.kind) {
    case "none":
      io.out("No install script: nothing to install");
      return 0;
    case "cached":
      io.out("Dependencies unchanged since the last install: skipping it (--force reinstalls)");
      return 0;
    case "installed":
      show?.done(`Installed in ${formatDuration(result.durationMs)}`);
      return 0;
    case "failed":
      show?.done();
      io.err(
        `Error: The install failed with exit code ${result.code} after ` +
          `${formatDuration(result.durationMs)}; ${file} is unchanged.\n` +
          `Last lines of ${result.log}:\n${
            result.tail.slice(-15).map((l) => `  │ ${l}`).join("\n")
          }`,
      );
      return 1;
  }
}

async function addBuiltin(
  name: string,
  read: ReadConfig,
  options: WorkerArgs,
  io: Io,
): Promise<number> {
  const file = options.config;
  const { text } = read;
  const existing = findWorkerEntry(text, name);
  if (existing) {
    const retried = await retryFailedBuiltin(name, read, options, io, existing.line);
    if (retried !== undefined) return retried;
    io.out(
      `Worker "${name}" is already in ${file} (line ${existing.line}): nothing changed` +
        (options.force ? ` (a built-in worker has no dependencies to reinstall)` : ""),
    );
    return 0;
  }
  const since = Date.now();
  const entry = { name, config: BUILTIN_WORKERS[name]!.defaultConfig };
  const written = await writeEntry(file, entry, `"${name}" is already there`, io);
  if (written === undefined) return 1;
  io.out(`Added "${name}" to ${file} with its reference configuration`);
  return await followEngine(name, options, io, {
    kind: "builtin",
    config: written,
    restart: false,
    since,
  });
}

/**
 * When the engine of the config runs but could not start built-in worker
 * `name` (its port was taken, say): asks it to try again (the config file
 * saved as it is) and waits for the answer. `undefined` when there is no
 * such failure to retry.
 */
async function retryFailedBuiltin(
  name: string,
  read: ReadConfig,
  options: WorkerArgs,
  io: Io,
  line: number,
): Promise<number | undefined> {
  const file = options.config;
  const url = await findEngineUrl(file, read.config, options.url);
  const linked = await linkEngine(url, file);
  if (!linked.ok) return undefined;
  const { link } = linked;
  try {
    const { failedBuiltins } = await link.supervisorList();
    const failed = failedBuiltins.find((f) => f.name === name);
    if (!failed) return undefined;
    io.out(
      `Worker "${name}" is in ${file} (line ${line}), but the engine could not start it: ` +
        `${failed.error}. Asking the engine to try again`,
    );
    const since = Date.now();
    // The engine retries its failed built-in workers when the file is saved unchanged.
    const unwritten = await editConfigFile(file, (text) => ({ text }));
    if (unwritten !== undefined) {
      io.err(`Error: ${unwritten}`);
      return 1;
    }
    if (!options.wait) {
      io.out(`The engine at ${url} tries again; "engine worker list" shows how it is doing`);
      return 0;
    }
    const wait = { timeoutMs: options.timeoutMs, configFile: file, since };
    return await waitForBuiltin(link, name, io, wait);
  } finally {
    await link.close();
  }
}

interface Follow {
  kind: "local" | "builtin";
  /** The config file's content as this command left it. */
  config: EngineConfig;
  /** Whether the worker was there already, so the engine must restart it. */
  restart: boolean;
  /** When the config was written (ms since the epoch); now by default. */
  since?: number;
}

/** Tells what the running engine does with the new entry, waiting unless `--no-wait`. */
async function followEngine(
  name: string,
  options: WorkerArgs,
  io: Io,
  follow: Follow,
): Promise<number> {
  const { kind, config, restart, since = Date.now() } = follow;
  const url = await findEngineUrl(options.config, config, options.url);
  const linked = await linkEngine(url, options.config);
  if (!linked.ok && linked.refused) {
    io.err(
      `Warning: ${linked.reason}. The engine reads ${options.config} and starts "${name}" ` +
        `itself; this command cannot follow it without the token`,
    );
    return 0;
  }
  if (!linked.ok) {
    io.out(`${linked.reason}: "${name}" starts with "engine --config ${options.config}"`);
    return 0;
  }
  const { link } = linked;
  try {
    if (restart) {
      const r = await link.client.call("engine::supervisor::restart", { name }) as {
        restarted: boolean;
      };
      if (r.restarted) io.out(`Restarting "${name}" in the engine at ${url}`);
    }
    if (!options.wait) {
      io.out(`The engine at ${url} starts "${name}"; "engine worker list" shows how it is doing`);
      return 0;
    }
    const wait = { timeoutMs: options.timeoutMs, configFile: options.config, since };
    return kind === "local"
      ? await waitForLocal(link, name, io, wait)
      : await waitForBuiltin(link, name, io, wait);
  } finally {
    await link.close();
  }
}

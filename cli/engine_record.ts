/**
 * Where a running engine listens, written down for the CLI. The port in the
 * config file is not always the one the engine took: `port:
 * ${ENGINE_PORT:49134}` with `ENGINE_PORT` set in the engine's shell only,
 * or `port: 0`. So `engine --config <file>` writes
 * `.engine/listening/<file name>.json` beside the file once it serves the
 * file's workers, and removes it when it stops cleanly. A killed engine
 * leaves its record behind, so the CLI trusts a record only once an engine
 * at its URL answers that it runs the same file (see `worker_engine.ts`).
 *
 * @module
 */
import { basename, dirname, join } from "node:path";

/** What the record holds. */
export interface EngineRecord {
  /** The URL a process on this machine dials, e.g. `ws://127.0.0.1:49135`. */
  url: string;
  /** The engine's process id. */
  pid: number;
  /** The config file the engine runs, absolute, symbolic links resolved. */
  config: string;
  /**
   * When the engine read the config file to start (ms since the epoch): a
   * file changed later may hold settings only a restart applies (a token).
   */
  started?: number;
}

/** The record file of the config file `file` (absolute); `undefined` when `file` is not there. */
export async function recordFile(file: string): Promise<string | undefined> {
  const real = await Deno.realPath(file).catch(() => undefined);
  return real === undefined ? undefined : recordFileOf(real);
}

function recordFileOf(real: string): string {
  return join(dirname(real), ".engine", "listening", `${basename(real)}.json`);
}

/**
 * Records that this process, the engine of the config file `file`, listens
 * at `url`. Returns the undo, which removes the record unless another engine
 * of the same file has replaced it since. A folder that may not be written
 * leaves no record (the CLI then uses the config's port), and a no-op undo;
 * it never rejects.
 */
export async function writeEngineRecord(
  file: string,
  url: string,
  started?: number,
): Promise<() => Promise<void>> {
  const real = await Deno.realPath(file).catch(() => undefined);
  if (real === undefined) return () => Promise.resolve();
  const path = recordFileOf(real);
  const record: EngineRecord = {
    url,
    pid: Deno.pid,
    config: real,
    ...(started === undefined ? {} : { started }),
  };
  const temporary = `${path}.${Deno.pid}.tmp`;
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    // Written aside, then renamed: a reader never sees half a record.
    await Deno.writeTextFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
    await Deno.rename(temporary, path);
  } catch {
    await Deno.remove(temporary).catch(() => {});
    return () => Promise.resolve();
  }
  return async () => {
    if ((await readRecordAt(path))?.pid !== Deno.pid) return;
    await Deno.remove(path).catch(() => {});
  };
}

/** The record of the config file `file`, when there is one and it can be read. */
export async function readEngineRecord(file: string): Promise<EngineRecord | undefined> {
  const path = await recordFile(file);
  return path === undefined ? undefined : await readRecordAt(path);
}

async function readRecordAt(path: string): Promise<EngineRecord | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
  const { url, pid, config, started } = (value ?? {}) as Record<string, unknown>;
  if (typeof url !== "string" || !/^wss?:\/\//.test(url)) return undefined;
  if (typeof pid !== "number" || typeof config !== "string") return undefined;
  return { url, pid, config, ...(typeof started === "number" ? { started } : {}) };
}

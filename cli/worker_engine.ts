/**
 * The `engine worker` commands' view of a running engine: find the engine
 * that runs a given config file, read its supervised and connected workers,
 * and wait for a worker to come up or go away.
 *
 * @module
 */

import type { EngineConfig } from "../engine/config/mod.ts";
import { dialableHost } from "../engine/host.ts";
import type { BuiltinFailure, SupervisedView } from "../engine/supervisor/functions.ts";
import { readEngineRecord } from "./engine_record.ts";
import { DEFAULT_ENGINE_URL, EngineClient, FunctionFailed } from "./engine_url.ts";

/** A worker as `engine::workers::list` shows it (the fields used here). */
export interface ConnectedWorker {
  name: string;
  kind: string;
  pid: number | null;
  function_count: number;
  functions: string[];
  /** A built-in worker whose start has not finished (its functions may still be coming). */
  starting?: boolean;
}

/** A connection to the engine that runs the config file. */
export interface EngineLink {
  url: string;
  client: EngineClient;
  /** `supervisorList().workers`. */
  supervised(): Promise<SupervisedView[]>;
  /**
   * The supervised workers and the built-in workers of the config the engine
   * could not start (a port in use, say), from one call: the same moment.
   */
  supervisorList(): Promise<{ workers: SupervisedView[]; failedBuiltins: BuiltinFailure[] }>;
  connected(): Promise<ConnectedWorker[]>;
  close(): Promise<void>;
}

export type LinkResult =
  | { ok: true; link: EngineLink }
  /**
   * No engine to talk to, and why, in a sentence; `refused`: one runs there
   * but refused this command's token (it still reads the config file).
   */
  | { ok: false; url: string; reason: string; refused?: boolean };

/**
 * The URL to reach the engine of `config`: `--url`, else `ENGINE_URL`, else
 * the config's own host and port.
 */
export function engineUrlFor(config: EngineConfig | undefined, flag?: string): string {
  const fromEnv = flag || Deno.env.get("ENGINE_URL");
  if (fromEnv) return fromEnv;
  if (!config || config.port === 0) return DEFAULT_ENGINE_URL;
  return `ws://${dialableHost(config.host)}:${config.port}`;
}

/**
 * The URL of the engine that runs the config file `file` (absolute):
 * `--url`, else `ENGINE_URL`, else where the engine started with `file`
 * recorded that it listens, when an engine answers there for `file` (see
 * `engine_record.ts`), else the config's own host and port.
 */
export async function findEngineUrl(
  file: string,
  config: EngineConfig | undefined,
  flag?: string,
): Promise<string> {
  if (flag || Deno.env.get("ENGINE_URL")) return engineUrlFor(undefined, flag);
  return await recordedEngineUrl(file) ?? engineUrlFor(config);
}

/**
 * The URL in the record of `file`'s engine, once an engine there says it
 * runs `file`; `undefined` when there is no record, or it is stale (the
 * engine was killed: nothing answers there, or another program or another
 * config's engine took the port). An engine that refuses the CLI for want
 * of a token says nothing more, and is taken at its record's word: the
 * command then tells which token it needs.
 */
export async function recordedEngineUrl(file: string): Promise<string | undefined> {
  const record = await readEngineRecord(file);
  if (record === undefined) return undefined;
  let client: EngineClient;
  try {
    client = await EngineClient.connect(record.url, { timeoutMs: 2000 });
  } catch (error) {
    return /\(HTTP 401\)/.test((error as Error).message) ? record.url : undefined;
  }
  try {
    const { config } = await client.call("engine::supervisor::list", {}, 5000) as {
      config: string;
    };
    return await sameFile(config, file) ? record.url : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close();
  }
}

/** Connects to the engine at `url` and checks that it runs the config file `file`. */
export async function linkEngine(url: string, file: string): Promise<LinkResult> {
  let client: EngineClient;
  try {
    client = await EngineClient.connect(url, { timeoutMs: 3000 });
  } catch (error) {
    const message = (error as Error).message;
    if (/\(HTTP 401\)/.test(message)) {
      return { ok: false, url, reason: message, refused: true };
    }
    return { ok: false, url, reason: `No engine is running at ${url}` };
  }
  let runs: string;
  try {
    ({ config: runs } = await client.call("engine::supervisor::list", {}, 10_000) as {
      config: string;
    });
  } catch (error) {
    await client.close();
    const detail = error instanceof FunctionFailed ? error.body.message : String(error);
    return {
      ok: false,
      url,
      reason: `The engine at ${url} does not supervise workers (${detail})`,
    };
  }
  if (!await sameFile(runs, file)) {
    await client.close();
    return { ok: false, url, reason: `The engine at ${url} runs ${runs}, not ${file}` };
  }
  const link: EngineLink = {
    url,
    client,
    async supervisorList() {
      const r = await client.call("engine::supervisor::list", {}, 10_000) as {
        workers: SupervisedView[];
        failed_builtins?: BuiltinFailure[];
      };
      return { workers: r.workers, failedBuiltins: r.failed_builtins ?? [] };
    },
    async supervised() {
      return (await link.supervisorList()).workers;
    },
    async connected() {
      const r = await client.call("engine::workers::list", {}, 10_000) as {
        workers: ConnectedWorker[];
      };
      return r.workers;
    },
    close: () => client.close(),
  };
  return { ok: true, link };
}

async function sameFile(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  try {
    return await Deno.realPath(a) === await Deno.realPath(b);
  } catch {
    return false;
  }
}

/** Polls `check` every `intervalMs` until it returns a value or `timeoutMs` passes. */
export async function poll<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}

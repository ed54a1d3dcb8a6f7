/**
 * Test support: an engine in this process with a supervisor and a
 * {@linkcode ConfigReloader} over a config file in a fresh temporary folder.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type EngineConfig, parseConfig, type WorkerEntry } from "../engine/config/mod.ts";
import { type RunningEngine, startEngine } from "../engine/engine.ts";
import { Supervisor } from "../engine/supervisor/supervisor.ts";
import { builtinConfigParsers } from "../workers/catalog.ts";
import { ConfigReloader } from "./reload.ts";
import { withGlobalMiddleware } from "./start.ts";

export interface ReloadHarness {
  dir: string;
  file: string;
  engine: RunningEngine;
  supervisor: Supervisor;
  reloader: ConfigReloader;
  /** Writes `text` to the config file and reloads it. */
  edit(text: string): Promise<"apply" | "reject" | "unchanged" | "unread">;
  /** The engine's latest log line. */
  lastLog(): string;
  /** Stops everything and removes the folder. */
  stop(): Promise<void>;
}

/** Starts the harness on `initial` (the config it runs before the first edit). */
export async function startReloadHarness(prefix: string, initial: string): Promise<ReloadHarness> {
  const dir = await Deno.makeTempDir({ prefix });
  const file = `${dir}/engine-config.yaml`;
  const parse = { env: () => undefined, workerConfigs: builtinConfigParsers() };
  const parsed = parseConfig(initial, { ...parse, file });
  assert.ok(parsed.ok, "the initial config parses");
  const engine = await startEngine({ port: 0, baseDir: dir });
  const supervisor = new Supervisor({
    baseDir: dir,
    cacheDir: `${dir}/.engine/installs`,
    engineUrl: engine.url,
    loggerFor: (name) => engine.logs.logger({ source: name, worker: name }),
  });
  const reloader = new ConfigReloader({
    file,
    engine,
    supervisor,
    config: parsed.config,
    parse,
    builtinConfig: (config: EngineConfig, entry: WorkerEntry) =>
      withGlobalMiddleware(config, entry.name, entry.config ?? {}),
    log: engine.logs.logger({ source: "engine" }),
  });
  return {
    dir,
    file,
    engine,
    supervisor,
    reloader,
    edit: async (text) => {
      await Deno.writeTextFile(file, text);
      return await reloader.reload();
    },
    lastLog: () => engine.logs.query({ worker: "engine" }).at(-1)?.message ?? "",
    stop: async () => {
      await supervisor.stop();
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Test support for the console against an engine process: the engine with
 * the console on a free port and one local worker, and the console's URL.
 *
 * @module
 */
import { type EngineProcess, spawnEngine, tempConfig } from "./engine_process.ts";
import { type LocalWorkerSpec, writeLocalWorker } from "./local_worker.ts";

export interface ConsoleEngine {
  /** The temporary folder holding the config and the worker. */
  dir: string;
  /** The worker's folder. */
  folder: string;
  engine: EngineProcess;
  /** The console's URL, as the engine printed it. */
  url: string;
}

/**
 * Starts an engine on free ports with the console on and, in `dir/<name>`,
 * the local worker `spec`, after the `workers` list items of `workersYaml`.
 */
export async function startConsoleEngine(
  spec: LocalWorkerSpec,
  workersYaml = "",
): Promise<ConsoleEngine> {
  const { dir, file } = await tempConfig("");
  const folder = await writeLocalWorker(`${dir}/${spec.name}`, spec);
  await Deno.writeTextFile(
    file,
    `host: 127.0.0.1\nport: 0\nconsole:\n  port: 0\nworkers:\n${workersYaml}` +
      `  - name: ${spec.name}\n    path: ${JSON.stringify(folder)}\n`,
  );
  const engine = await spawnEngine({ config: file });
  try {
    const line = await engine.waitForLine(/^Console on http:/);
    return { dir, folder, engine, url: /(http:\/\/\S+)/.exec(line)![1]! };
  } catch (error) {
    await engine.stop();
    throw error;
  }
}

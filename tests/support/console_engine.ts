/**
 * Test support for the console against an engine process: its config (the
 * console on a free port beside the given workers) and the console's URL.
 *
 * @module
 */
import type { EngineProcess } from "./engine_process.ts";

/** Writes `file`: an engine on free ports, the console on, and `workersYaml` (list items). */
export async function writeConsoleConfig(file: string, workersYaml: string): Promise<void> {
  await Deno.writeTextFile(
    file,
    `host: 127.0.0.1\nport: 0\nconsole:\n  port: 0\nworkers:\n${workersYaml}`,
  );
}

/** The YAML list item of a local worker in folder `path`. */
export function localWorkerYaml(name: string, path: string): string {
  return `  - name: ${name}\n    path: ${JSON.stringify(path)}\n`;
}

/** The console's URL, from the line the engine prints when it serves it. */
export async function consoleUrlOf(engine: EngineProcess): Promise<string> {
  return /(http:\/\/\S+)/.exec(await engine.waitForLine(/^Console on http:/))![1]!;
}

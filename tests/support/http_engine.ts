/**
 * An engine process with engine-http and one supervised Deno worker, as a
 * user's project runs: a temporary folder with the worker's manifest and
 * source and an engine-config.yaml naming both.
 *
 * @module
 */
import { type EngineProcess, spawnEngine } from "./engine_process.ts";
import { writeLocalWorker } from "./local_worker.ts";

export interface HttpEngine {
  dir: string;
  engine: EngineProcess;
  /** engine-http's address, e.g. `http://127.0.0.1:41235`. */
  base: string;
}

/** Starts it; `source` is the worker's main.ts (it may use the SDK at `SDK_URL`). */
export async function startHttpEngine(worker: string, source: string): Promise<HttpEngine> {
  const dir = await Deno.makeTempDir({ prefix: `engine-${worker}-` });
  await writeLocalWorker(`${dir}/${worker}`, {
    name: worker,
    start: "deno run --allow-net --allow-env --allow-read main.ts",
    files: { "main.ts": source },
  });
  await Deno.writeTextFile(
    `${dir}/engine-config.yaml`,
    "port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config:\n" +
      `      port: 0\n  - name: ${worker}\n    path: ./${worker}\n`,
  );
  const engine = await spawnEngine({ config: `${dir}/engine-config.yaml`, cwd: dir });
  const httpLine = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
  return { dir, engine, base: `http://127.0.0.1:${/"port":(\d+)/.exec(httpLine)![1]}` };
}

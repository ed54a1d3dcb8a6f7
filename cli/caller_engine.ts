/**
 * Which engine a command such as `engine trigger` talks to when it is not
 * told: the one the folder it runs in configures. Run in a project whose
 * `engine-config.yaml` moves the engine to another port, the commands follow
 * it, as the `engine worker` commands do.
 *
 * @module
 */
import { resolveFromCaller } from "./paths.ts";
import { readConfigFile } from "./worker_args.ts";
import { engineUrlFor, findEngineUrl } from "./worker_engine.ts";

/**
 * `--url`, else `ENGINE_URL`, else where the running engine of
 * `engine-config.yaml` in the caller's folder recorded that it listens (when
 * it answers there), else the host and port of that file (when it is there
 * and valid), else `ws://localhost:49134`.
 */
export async function callerEngineUrl(flag?: string): Promise<string> {
  if (flag || Deno.env.get("ENGINE_URL")) return engineUrlFor(undefined, flag);
  const file = resolveFromCaller("engine-config.yaml");
  const read = await readConfigFile(file);
  return await findEngineUrl(file, read.ok ? read.config : undefined);
}

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
import { engineUrlFor } from "./worker_engine.ts";

/**
 * `--url`, else `ENGINE_URL`, else the host and port of `engine-config.yaml`
 * in the caller's folder (when it is there and valid), else
 * `ws://localhost:49134`.
 */
export async function callerEngineUrl(flag?: string): Promise<string> {
  if (flag || Deno.env.get("ENGINE_URL")) return engineUrlFor(undefined, flag);
  const read = await readConfigFile(resolveFromCaller("engine-config.yaml"));
  return engineUrlFor(read.ok ? read.config : undefined);
}

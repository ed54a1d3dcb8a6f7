/**
 * Whether a token the engine refused may be one its config file now holds
 * and only a restart applies: `auth.token` edited in the file of a running
 * engine waits for the next start, so the CLI sending the new token is
 * refused (401) meanwhile. Said only when it may be the case: the engine
 * recorded when it read the file (`engine_record.ts`), the file changed
 * after that, and the file itself (not `ENGINE_TOKEN` standing in for a
 * missing `auth.token`) sets the token that was sent.
 *
 * @module
 */
import { CONSOLE_TOKEN_ENV, ENGINE_TOKEN_ENV, parseConfig } from "../engine/config/mod.ts";
import { isLoopbackHost } from "../engine/host.ts";
import { readEngineRecord } from "./engine_record.ts";
import { resolveFromCaller } from "./paths.ts";

/**
 * The config file whose `auth.token` is `token`, set there after the engine
 * at `url` read it to start; `undefined` when that is not so or cannot be
 * told. `file` is the config of the caller's folder unless named.
 */
export async function pendingTokenFile(
  url: string,
  token: string,
  file = resolveFromCaller("engine-config.yaml"),
): Promise<string | undefined> {
  try {
    const record = await readEngineRecord(file);
    if (record?.started === undefined || !sameEndpoint(record.url, url)) return undefined;
    const changed = (await Deno.stat(file)).mtime?.getTime();
    if (changed === undefined || changed <= record.started) return undefined;
    // The token variables are left out: a token the engine took from its own environment is not
    // the file's, and the caller's says nothing of the engine's.
    const hidden = new Set([ENGINE_TOKEN_ENV, CONSOLE_TOKEN_ENV]);
    const parsed = parseConfig(await Deno.readTextFile(file), {
      file,
      env: (name) => hidden.has(name) ? undefined : Deno.env.get(name),
    });
    return parsed.ok && parsed.config.auth.token === token ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `a` and `b` reach the same server: the same port, and the same host or both loopback. */
function sameEndpoint(a: string, b: string): boolean {
  let x: URL, y: URL;
  try {
    x = new URL(a);
    y = new URL(b);
  } catch {
    return false;
  }
  if (x.port !== y.port) return false;
  return x.hostname === y.hostname ||
    (isLoopbackHost(x.hostname) && isLoopbackHost(y.hostname));
}

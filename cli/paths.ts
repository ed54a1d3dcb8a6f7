/**
 * Where relative paths on the command line point: the folder the user ran
 * the command from. `deno task` runs in the project folder and passes the
 * caller's folder as `INIT_CWD`, so `deno task engine …` behaves like the
 * binary run in that folder.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

export function callerDir(): string {
  return Deno.env.get("INIT_CWD") || Deno.cwd();
}

export function resolveFromCaller(path: string): string {
  return isAbsolute(path) ? path : resolve(callerDir(), path);
}

/**
 * Where relative paths on the command line point: the folder the user ran
 * the command from. `deno task` runs in the project folder and passes the
 * caller's folder as `INIT_CWD`; the `engine` and `start` tasks hand it on as
 * `ENGINE_CALLER_DIR`, so `deno task engine …` behaves like the binary run in
 * that folder. The binary itself ignores a stray `INIT_CWD` (npm sets one for
 * every script it runs).
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";

export function callerDir(): string {
  return Deno.env.get("ENGINE_CALLER_DIR") || Deno.cwd();
}

export function resolveFromCaller(path: string): string {
  return isAbsolute(path) ? path : resolve(callerDir(), path);
}
